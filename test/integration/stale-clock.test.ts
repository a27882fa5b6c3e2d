import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { prepareCreate } from '../../src/client/create-request';
import type { AuditEvent } from '../../src/common/audit';
import type { GateState } from '../../src/common/gate-state';
import { notifyEnv, notifySettingsFrom } from '../../src/notify/config';
import { approvalGateWorkflow } from '../../src/workflow/gate/approval-gate';
import { getAuditQuery, getGateQuery } from '../../src/workflow/gate/messages';
import { refundBody } from '../support/gate-fixtures';
import { killLeftoverWorkers, spawnWorker, uniqueTaskQueue } from '../support/processes';
import { waitFor } from '../support/wait';
import { startSlackStandin, type SlackStandin } from '../support/slack-standin';

// A timer's firing can run with the clock of the gate's task before it: when a query task is
// handed out after the timer fired, a worker that has not yet taken a task of the gate runs the
// firing inside the query's replay (see src/workflow/gate/deadlines.ts). Here every gate's
// first escalation fires while no worker runs and a query waits for one, so the next worker
// takes some gates' queries before their workflow tasks. Whichever it takes first, no event
// may be dated before its time, and the TTL must fail closed on time.

const MARGIN_MS = 4000;
const GATES = 12; // half with an escalate_before notice, half with a chain of two levels
const TTL = 20;
const FIRST_AT = 8; // seconds after creation: the notice (escalate_before 12) and level 1
let connection: Connection;
let client: Client;
let slack: SlackStandin;
const dirs: string[] = [];

beforeAll(async () => {
  connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  client = new Client({ connection });
  slack = await startSlackStandin();
});

afterAll(async () => {
  await killLeftoverWorkers();
  await connection?.close();
  await slack?.close();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

it('dates no event before its time and expires on time when a query runs a fired timer', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gate-stale-clock-'));
  dirs.push(dataDir);
  const taskQueue = uniqueTaskQueue('stale-clock');
  const env = {
    GATE_PUBLIC_URL: 'https://gate.example.test',
    GATE_SLACK_BOT_TOKEN: slack.token,
    GATE_SLACK_API_URL: slack.url,
  };
  const settings = notifySettingsFrom(env);
  const first = await spawnWorker({ dataDir, taskQueue, env });
  const gates = await Promise.all(
    Array.from({ length: GATES }, async (_, i) => {
      const chain = i % 2 === 1;
      const extra = chain
        ? {
            escalation: {
              levels: [
                { after: FIRST_AT, notify: ['slack:#stale-1'] },
                { after: FIRST_AT + 6, notify: ['slack:#stale-2'] },
              ],
            },
          }
        : { escalate_before_seconds: TTL - FIRST_AT };
      const { input, requestId } = prepareCreate(
        refundBody(`corr-${randomUUID()}`, { ttl_seconds: TTL, ...extra }),
        { agentId: 'agent_billing' },
        { notify: { settings: notifyEnv(settings), defaults: [] } },
      );
      const handle = await client.workflow.start(approvalGateWorkflow, {
        workflowId: requestId,
        taskQueue,
        args: [input],
      });
      const state: GateState = await handle.query(getGateQuery); // the first worker took the first task
      return { chain, handle, created: Date.parse(state.created_at), expires: Date.parse(state.expires_at) };
    }),
  );
  // Stopped (SIGTERM: it leaves its sticky queue), so queries and tasks wait for the next worker.
  expect(await first.kill('SIGTERM')).toEqual({ code: 0, signal: null });
  const firstDue = Math.max(...gates.map((g) => g.created)) + FIRST_AT * 1000;
  await new Promise((r) => setTimeout(r, firstDue - 1500 - Date.now()));
  expect(Date.now()).toBeLessThan(firstDue); // the queries were asked before the timers fired
  const queries = gates.map((g) => g.handle.query(getAuditQuery));
  await new Promise((r) => setTimeout(r, firstDue + 500 - Date.now()));
  await spawnWorker({ dataDir, taskQueue, env });
  const back = Date.now();
  await Promise.all(queries);

  const ended = await waitFor(
    'every gate expired',
    async () => {
      const trails: AuditEvent[][] = await Promise.all(gates.map((g) => g.handle.query(getAuditQuery)));
      return trails.every((t) => t.some((e) => e.event_type === 'approval.expired')) ? trails : undefined;
    },
    (TTL + 30) * 1000,
  );
  const late: string[] = [];
  let floored = 0;
  gates.forEach((g, i) => {
    const at = (type: string) =>
      (ended[i] ?? []).filter((e) => e.event_type === type).map((e) => Date.parse(e.timestamp) - g.created);
    const escalated = at('approval.escalated');
    const due1 = g.chain ? FIRST_AT * 1000 : g.expires - g.created - (TTL - FIRST_AT) * 1000;
    const dues = g.chain ? [due1, (FIRST_AT + 6) * 1000] : [due1];
    // The first level waited for the worker; a later one may wait as long again when its timer was armed by a query.
    const away = back - g.created - due1;
    const early = escalated.some((ms, k) => ms < (dues[k] ?? Infinity));
    const tooLate = escalated.some((ms, k) => ms > (dues[k] ?? -Infinity) + away + MARGIN_MS);
    if (escalated.length !== dues.length || early || tooLate)
      late.push(`gate ${i}: escalated at ${JSON.stringify(escalated)} ms, due ${JSON.stringify(dues)}`);
    if (escalated[0] === due1) floored++; // its firing ran in a query: dated at the timer's deadline
    const expired = at('approval.expired')[0] ?? NaN;
    const ttl = g.expires - g.created;
    if (!(expired >= ttl && expired < ttl + MARGIN_MS)) late.push(`gate ${i}: expired at ${expired} ms, TTL ${ttl}`);
  });
  if (late.length > 0) throw new Error(`${late.join('\n')}\n(${floored} of ${GATES} fired in a query)`);
  // Which gates raced varies from run to run; the file's own output says how many did.
  process.stdout.write(`stale-clock: ${floored} of ${GATES} gates fired their first level in a query\n`);
}, 120_000);
