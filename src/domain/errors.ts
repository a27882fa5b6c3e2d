// A domain's tools throw DomainToolError; it lives with the other groups of the error tree.
export { DomainToolError, isDomainToolError } from '../common/errors';
