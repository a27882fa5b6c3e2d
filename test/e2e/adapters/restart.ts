import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { httpGate } from '../../../src/adapters/common/http-transport';
import { waitFor } from '../../support/wait';
import type { ApiHarness } from '../api-harness';
import { startAgent, type AgentProcess } from './agent-process';
import { decideWhenOpen } from './decide';

/** What a fixture agent of test/fixtures/adapters reads: the gate server, one refund call, files in a fresh dir. */
export interface AgentEnv extends Record<string, string> {
  GATE_URL: string;
  AGENT_KEY: string;
  AGENT_ID: string;
  SCOPE: string;
  CALL_ID: string;
  CHARGE: string;
  RAN_FILE: string;
  STATE_FILE: string;
}

/** A fresh env for one fixture agent run as `agent-1`; `prefix` names its temp dir. */
export function agentEnv(h: ApiHarness, prefix: string): AgentEnv {
  const dir = fs.mkdtempSync(path.join(process.env.GATE_TEST_TMP ?? os.tmpdir(), `${prefix}-`));
  const n = randomUUID().slice(0, 8);
  return {
    GATE_URL: h.url,
    AGENT_KEY: h.keys.agent,
    AGENT_ID: 'agent-1',
    SCOPE: `scope_${n}`,
    CALL_ID: `call_${n}`,
    CHARGE: `ch_restart_${n}`,
    RAN_FILE: path.join(dir, 'ran.log'),
    STATE_FILE: path.join(dir, 'state.json'),
  };
}

/** The gate server as the fixture agents reach it (`agent-1`), to derive the ids of their gates. */
export const fixtureTransport = (h: ApiHarness) => httpGate({ url: h.url, agentKey: h.keys.agent, agentId: 'agent-1' });

/** The args of the fixture agent's one refund call. */
export const refundArgs = (env: AgentEnv) => ({ charge: env.CHARGE, amount: 2500 });

/** The request ids of the gates listed for `target` (visibility lags a little: waits for the first). */
export async function gatesFor(h: ApiHarness, target: string): Promise<string[]> {
  const listed = await waitFor('the gate in the listing', async () => {
    const r = await h.http('GET', `/v1/approvals?target=${encodeURIComponent(target)}`, { key: h.keys.reviewer });
    return r.body.approvals.length > 0 && (r.body.approvals as { request_id: string }[]);
  });
  return listed.map((a) => a.request_id);
}

/**
 * The restart case of every adapter: the fixture agent `script` opens gate `id` and is
 * SIGKILLed while it waits; the reviewer approves; a second process of the same agent
 * reattaches and finishes. Checks the second exits 0 with the final answer, the tool
 * ran exactly once with the model's args, and the call has one gate. Returns the second.
 */
export async function killApproveRestart(h: ApiHarness, script: string, env: AgentEnv, id: string) {
  const first = startAgent(script, env);
  await h.waitFor(id, (b) => b.status === 'requested', 60_000);
  await first.kill();
  await decideWhenOpen(h, id, { decision: 'approve' });

  const second: AgentProcess = startAgent(script, env);
  expect(await second.exited).toEqual({ code: 0, signal: null });
  expect(second.output()).toContain('final: Refunded.');
  expect(fs.readFileSync(env.RAN_FILE, 'utf8').trim().split('\n')).toEqual([JSON.stringify(refundArgs(env))]);
  expect(await gatesFor(h, `charge:${env.CHARGE}`)).toEqual([id]);
  return second;
}
