import { httpGate } from '../../../src/adapters/common/http-transport';

/** An env var a fixture agent needs (the restart helper sets them all); exits 2 when it is missing. */
export const env = (k: string): string => process.env[k] ?? (console.error(`missing ${k}`), process.exit(2));

/** The adapter options every fixture agent shares: the gate server from its env, polled fast, the charge as target. */
export function fixtureGate() {
  return {
    gate: httpGate({ url: env('GATE_URL'), agentKey: env('AGENT_KEY'), agentId: env('AGENT_ID') }),
    pollIntervalMs: 100,
    describe: () => ({ target: `charge:${env('CHARGE')}` }),
  };
}
