import path from 'node:path';
import type { DomainSource } from './types';

/**
 * The example domain the `gate` processes serve when no module is named: the business-trip
 * domain in examples/trip, loaded like any user's module (from source under tsx/jest, from
 * dist/examples/trip when built; both sit two folders above this file's).
 */
export const EXAMPLE_DOMAINS_MODULE = path.resolve(__dirname, '..', '..', 'examples', 'trip');

/**
 * The domains the `gate` processes (`gate dev`, `gate worker`, `gate api`) serve: those
 * exported as `domains` by the module named in `GATE_DOMAINS_MODULE`, else the example
 * trip domain. A library user passes their domains to createGateWorker/startApiServer instead.
 * Throws when the module exports no `domains` array.
 */
export function configuredDomains(env: NodeJS.ProcessEnv = process.env): DomainSource[] {
  const file = env.GATE_DOMAINS_MODULE ? path.resolve(env.GATE_DOMAINS_MODULE) : EXAMPLE_DOMAINS_MODULE;
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a user's module, named at run time
  const mod = require(file) as { domains?: unknown; default?: { domains?: unknown } };
  const domains = mod.domains ?? mod.default?.domains;
  if (!Array.isArray(domains)) throw new Error(`GATE_DOMAINS_MODULE=${file} must export a "domains" array`);
  return domains as DomainSource[];
}
