import path from 'node:path';

/** The groups under ApprovalGateError, one per party at fault (src/common/errors.ts). */
export const GROUPS = [
  'ConfigurationError',
  'RefusedError',
  'UnavailableError',
  'DomainToolError',
  'ModelError',
] as const;
export type Group = (typeof GROUPS)[number];

/** One error class of src/: its module (under src/), its group, arguments to build one, its family if any. */
export interface ErrorClassRow {
  name: string;
  module: string;
  group: Group;
  args: unknown[];
  /** A class its instances also count as though it is not on their prototype chain. */
  family?: string;
  retryable: boolean;
}

const cause = new Error('connect ECONNREFUSED 127.0.0.1:8787');

/** Every error class in src/ but the abstract root; the guard test fails when one is missing here. */
export const ERROR_CLASSES: ErrorClassRow[] = [
  { name: 'ConfigurationError', module: 'common/errors', group: 'ConfigurationError', args: ['m'], retryable: false },
  { name: 'RefusedError', module: 'common/errors', group: 'RefusedError', args: ['m'], retryable: false },
  { name: 'UnavailableError', module: 'common/errors', group: 'UnavailableError', args: ['m'], retryable: true },
  { name: 'DomainToolError', module: 'common/errors', group: 'DomainToolError', args: ['m'], retryable: false },
  { name: 'ModelError', module: 'common/errors', group: 'ModelError', args: ['m', { status: 400 }], retryable: false },
  // The caller's or the operator's fault.
  {
    name: 'PolicyFileError',
    module: 'policy/reviewer-policy',
    group: 'ConfigurationError',
    args: ['rules.yaml', ['rules[0].roles: a role is listed twice']],
    retryable: false,
  },
  {
    name: 'UnknownDomainError',
    module: 'domain/registry',
    group: 'ConfigurationError',
    args: ['hotel', ['trip']],
    retryable: false,
  },
  {
    name: 'MissingPeerError',
    module: 'adapters/common/peers',
    group: 'ConfigurationError',
    args: ['approval-gate/ai-sdk', ['ai'], 'ai@^6.0.0', cause],
    retryable: false,
  },
  {
    name: 'KeyExistsError',
    module: 'store/key-store',
    group: 'ConfigurationError',
    args: ['agent', 'bot'],
    retryable: false,
  },
  {
    name: 'KeyNotFoundError',
    module: 'store/key-store',
    group: 'ConfigurationError',
    args: ['agent', 'bot'],
    retryable: false,
  },
  { name: 'GateCliError', module: 'cli/errors', group: 'ConfigurationError', args: ['m'], retryable: false },
  { name: 'UsageError', module: 'cli/errors', group: 'ConfigurationError', args: ['m'], retryable: false },
  {
    name: 'GateAdapterError',
    module: 'adapters/common/errors',
    group: 'ConfigurationError',
    args: ['m'],
    retryable: false,
  },
  // Turned away by approval-gate.
  {
    name: 'GateError',
    module: 'client/gate-error',
    group: 'RefusedError',
    args: [409, 'illegal_transition', 'm'],
    retryable: false,
  },
  {
    name: 'ApiError',
    module: 'cli/errors',
    group: 'RefusedError',
    args: [503, 'temporal_unavailable', 'm'],
    family: 'GateCliError',
    retryable: true,
  },
  {
    name: 'GateRequestError',
    module: 'adapters/common/errors',
    group: 'RefusedError',
    args: [409, 'busy', 'm'],
    family: 'GateAdapterError',
    retryable: true,
  },
  {
    name: 'NotApprovedError',
    module: 'adapters/common/errors',
    group: 'RefusedError',
    args: ['req_1', 'denied', 'm'],
    family: 'GateAdapterError',
    retryable: false,
  },
  { name: 'WebhookVerificationError', module: 'webhooks/verify', group: 'RefusedError', args: ['m'], retryable: false },
  {
    name: 'CheckFailedError',
    module: 'cli/errors',
    group: 'RefusedError',
    args: ['m'],
    family: 'GateCliError',
    retryable: false,
  },
  // A service did not answer.
  {
    name: 'StoreUnavailableError',
    module: 'store/unavailable',
    group: 'UnavailableError',
    args: ['m'],
    retryable: true,
  },
  {
    name: 'ModelUnavailable',
    module: 'worker/models/errors',
    group: 'UnavailableError',
    args: ['m', { status: 503 }],
    retryable: true,
  },
  {
    name: 'UnreachableError',
    module: 'cli/errors',
    group: 'UnavailableError',
    args: ['http://127.0.0.1:8787', cause],
    family: 'GateCliError',
    retryable: true,
  },
  {
    name: 'GateUnreachableError',
    module: 'adapters/common/errors',
    group: 'UnavailableError',
    args: ['http://127.0.0.1:8787', cause],
    family: 'GateAdapterError',
    retryable: true,
  },
  { name: 'StopWaiting', module: 'stack/processes', group: 'UnavailableError', args: ['m'], retryable: true },
  // The model provider.
  { name: 'ModelExhausted', module: 'worker/models/errors', group: 'ModelError', args: ['m'], retryable: false },
];

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type ErrorCtor = new (...args: any[]) => Error & { retryable: boolean };

export const SRC = path.join(__dirname, '..', '..', 'src');

/**
 * The error classes as one copy of the package has them, keyed by name (ApprovalGateError
 * included). Call it inside `jest.isolateModules` to get a second, separate copy.
 */
export function loadErrorClasses(): Record<string, ErrorCtor> {
  const classes: Record<string, ErrorCtor> = {};
  for (const row of [{ name: 'ApprovalGateError', module: 'common/errors' }, ...ERROR_CLASSES]) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- module paths come from the table
    const mod = require(path.join(SRC, row.module)) as Record<string, ErrorCtor>;
    const c = mod[row.name];
    if (typeof c !== 'function') throw new Error(`${row.module} does not export ${row.name}`);
    classes[row.name] = c;
  }
  return classes;
}
