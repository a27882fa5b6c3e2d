/** The keys the e2e files reused by the production suite expect (ApiHarness and api-runs). */
export const PRODUCTION_KEYS: readonly ['agent' | 'reviewer', string][] = [
  ['agent', 'agent-1'],
  ['agent', 'agent-2'],
  ['reviewer', 'rev-1'],
  ['reviewer', 'rev-2'],
  ['reviewer', 'agent-1'],
  ['agent', 'trip-agent'],
  ['reviewer', 'alice'],
  ['agent', 'other-agent'],
];
