import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { prepareCreate } from '../../src/client/create-request';
import { GateClient } from '../../src/client/gate-client';
import { startOptions } from '../../src/client/start-options';
import { verifyChain } from '../../src/common/audit';
import type { GateState } from '../../src/common/gate-state';
import type { AuditStore } from '../../src/store/audit-store';
import { getGateQuery } from '../../src/workflow/gate/messages';
import { CURRENT_PATCH_BASELINE } from '../../src/workflow/gate/patch-baseline';
import { patchIdsOf } from '../replay/history-codec';
import { refundBody, storeActivities } from '../support/gate-fixtures';
import { waitFor } from '../support/processes';
import { useAuditSuite } from '../support/run-harness';
import { startTestWorker } from '../support/temporal';

/**
 * A gate's creator declares its patch baseline in the input (`patch_baseline`). A worker
 * that knows it starts the gate on it without a patch marker, so without the
 * `TemporalChangeVersion` upsert (a visibility write) the SDK makes with each marker. The
 * baseline must hold when another worker rebuilds the gate from its history (a replay
 * that finds no marker), and a baseline the worker does not know falls back to asking the
 * patches, as a gate without one does.
 */
let client: Client;
let audit: AuditStore;
const taskQueue = `declared-baseline-${randomUUID()}`;
useAuditSuite((c, a) => {
  client = c;
  audit = a;
});

const approval = (payload_sha256: string) => ({
  decision_id: randomUUID(),
  reviewer_id: 'rev-1',
  decision: 'approve' as const,
  payload_sha256,
});

const typeOf = (e: temporal.api.history.v1.IHistoryEvent): string =>
  String(temporal.api.enums.v1.EventType[e.eventType ?? 0]);

async function typesOf(id: string): Promise<string[]> {
  return ((await client.workflow.getHandle(id).fetchHistory()).events ?? []).map(typeOf);
}

async function historyOf(id: string) {
  const history = await client.workflow.getHandle(id).fetchHistory();
  const events = history.events ?? [];
  const upserted = events.flatMap((e) =>
    Object.keys(e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields ?? {}),
  );
  return {
    history,
    patches: patchIdsOf(events),
    upserted,
    failedTasks: events.filter((e) => typeOf(e) === 'EVENT_TYPE_WORKFLOW_TASK_FAILED').length,
  };
}

/** Starts a gate as the API does, with `patch_baseline` as given (absent: as creators before it did). */
async function start(name: string, baseline: string | undefined): Promise<{ id: string; sha: string }> {
  const { requestId, input } = prepareCreate(refundBody(name), { agentId: 'agent-1' });
  expect(input.patch_baseline).toBe(CURRENT_PATCH_BASELINE); // what the API declares
  const { patch_baseline: _declared, ...rest } = input;
  const declared = baseline === undefined ? rest : { ...rest, patch_baseline: baseline };
  await client.workflow.start('approvalGateWorkflow', startOptions(requestId, declared, taskQueue, randomUUID()));
  return { id: requestId, sha: input.payload_sha256 };
}

async function finish(gates: GateClient, id: string, sha: string): Promise<GateState> {
  await gates.decide(id, approval(sha));
  await gates.consume(id, 'agent-1');
  return (await client.workflow.getHandle(id).result()) as GateState;
}

it('records no marker for a declared baseline, and finishes on it after another worker rebuilt the gate', async () => {
  const gates = new GateClient(client, { taskQueue, audit, webhookReceivers: 0 });
  const first = await startTestWorker(storeActivities(audit), taskQueue);
  const { request } = await gates.create(refundBody('declared'), { agentId: 'agent-1' });
  const id = request.request_id;
  // Its first task has run (and recorded no marker) on this worker.
  await waitFor('the first workflow task', async () =>
    (await typesOf(id)).includes('EVENT_TYPE_WORKFLOW_TASK_COMPLETED'),
  );
  expect((await client.workflow.getHandle(id).query(getGateQuery)).status).toBe('requested');
  await first.stop();

  // A new worker has no cached gate: it replays the first task, which recorded no marker.
  const second = await startTestWorker(storeActivities(audit), taskQueue);
  try {
    expect((await finish(gates, id, request.payload_sha256)).status).toBe('consumed');
  } finally {
    await second.stop();
  }
  const { history, patches, upserted, failedTasks } = await historyOf(id);
  expect(patches).toEqual([]);
  expect(upserted).toEqual(['GateStatus', 'GateStatus']); // approved, consumed: no TemporalChangeVersion
  expect(failedTasks).toBe(0);
  expect(verifyChain(await audit.list(id)).ok).toBe(true);
  // And the whole history replays on this code.
  await Worker.runReplayHistory({ workflowBundle: { codePath: process.env.GATE_TEST_WORKFLOW_BUNDLE! } }, history, id);
});

describe('a baseline the creator declared, or not', () => {
  let stop: () => Promise<void>;
  beforeAll(async () => ({ stop } = await startTestWorker(storeActivities(audit), taskQueue)));
  afterAll(() => stop());

  it.each([
    ['none (a creator from before patch_baseline)', undefined, [CURRENT_PATCH_BASELINE]],
    ['one this worker does not know (a newer creator)', 'gate-baseline-v99', [CURRENT_PATCH_BASELINE]],
    // The third baseline does not cover the lazy deadlines: that patch is asked on its own.
    ['an older one', 'gate-baseline-v3', ['gate-lazy-deadlines-v1']],
    ['the current one', CURRENT_PATCH_BASELINE, []],
  ])('declared %s: markers %j', async (_what, baseline, markers) => {
    const { id, sha } = await start(`declared-${randomUUID()}`, baseline);
    expect((await finish(new GateClient(client, { taskQueue }), id, sha)).status).toBe('consumed');
    const { patches, failedTasks } = await historyOf(id);
    expect(patches).toEqual(markers);
    expect(failedTasks).toBe(0);
  });
});
