import { gatedActivities } from '../../src/workflow';

// What gatedActivities checks before any workflow runs: each name in `specs` must be an
// activity of the stub (a stub from proxyActivities has every name; a plain object may not).

const spec = { request: () => ({ action: 'refund.create', target: 'order/1', summary: 'Refund', ttl: '1h' as const }) };

it('gates the activities the specs name, and leaves the others out', () => {
  const acts = { refund: async () => 'ok', lookup: async () => 'ok' };
  const gated = gatedActivities(acts, { refund: spec });
  expect(Object.keys(gated)).toEqual(['refund']);
  expect(typeof gated.refund).toBe('function');
});

it('refuses a name that is not an activity of the stub', () => {
  const acts = { refund: async () => 'ok' } as Record<string, unknown>;
  expect(() => gatedActivities(acts, { refnud: spec })).toThrow(
    'gatedActivities: refnud is not an activity of the stub',
  );
});
