import fs from 'node:fs';
import path from 'node:path';
import { Worker } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { bundleDelayedVariant, currentCode, installQuietRuntime } from './replay-support';
import { decodeHistory } from './history-codec';
import { AGENT_RUN_HISTORIES_DIR, childGateIds, GATE_TYPE, RUN_PATHS, RUN_TYPE } from './record-histories';

/**
 * Replays the checked-in agentRun histories and their child gates' (recorded by
 * `record-histories.ts agent-run`) against today's workflow code. A failure here means a
 * change would break runs or tool gates already in flight: version it with `patched()`
 * instead of re-recording.
 */

type History = ReturnType<typeof decodeHistory>;

const files = fs.readdirSync(AGENT_RUN_HISTORIES_DIR).filter((f) => f.endsWith('.json')).sort();
const read = (file: string): History => decodeHistory(fs.readFileSync(path.join(AGENT_RUN_HISTORIES_DIR, file), 'utf8'));
const idOf = (file: string): string => path.basename(file, '.json');


/** What a history did, as `kind:name` marks: activities, signals in and out, updates, children, the close. */
function marks(h: History): Set<string> {
  const out = new Set<string>();
  for (const e of h.events ?? []) {
    const a = e.activityTaskScheduledEventAttributes?.activityType?.name;
    if (a) out.add(`activity:${a}`);
    const s = e.workflowExecutionSignaledEventAttributes?.signalName;
    if (s) out.add(`signal:${s}`);
    const x = e.signalExternalWorkflowExecutionInitiatedEventAttributes?.signalName;
    if (x) out.add(`signal-out:${x}`);
    const u = e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name;
    if (u) out.add(`update:${u}`);
    const c = e.startChildWorkflowExecutionInitiatedEventAttributes?.workflowType?.name;
    if (c) out.add(`child:${c}`);
    if (e.workflowExecutionCancelRequestedEventAttributes) out.add('cancel-requested');
    if (e.requestCancelExternalWorkflowExecutionInitiatedEventAttributes) out.add('cancel-out');
    if (e.workflowExecutionCompletedEventAttributes) out.add('closed:completed');
    if (e.workflowExecutionCanceledEventAttributes) out.add('closed:canceled');
  }
  return out;
}

/** What each recording must show for it to cover the path it is named for. */
const COVERS: Record<string, string[]> = {
  'trip-approve.agentRunWorkflow': ['activity:callModel', 'activity:planToolCall', 'activity:executeTool', `child:${GATE_TYPE}`, 'closed:completed'],
  'trip-approve.approvalGateWorkflow': ['update:decide', 'activity:recheckSnapshot', 'activity:executeTool', 'closed:completed'],
  'trip-modify.agentRunWorkflow': ['signal:argsFinalized', `child:${GATE_TYPE}`, 'closed:completed'],
  'trip-modify.approvalGateWorkflow': ['update:decide', 'activity:reviseToolCall', 'signal-out:argsFinalized', 'activity:executeTool', 'closed:completed'],
  'trip-reject.agentRunWorkflow': [`child:${GATE_TYPE}`, 'closed:completed'],
  'trip-reject.approvalGateWorkflow': ['update:decide', 'closed:completed'],
  'trip-batch.agentRunWorkflow': [`child:${GATE_TYPE}`, 'activity:executeTool', 'closed:completed'],
  'trip-batch.approvalGateWorkflow': ['update:decide', 'activity:executeTool', 'closed:completed'],
  'ask-user.agentRunWorkflow': ['update:respondInteraction', 'closed:completed'],
  'run-cancel.agentRunWorkflow': [`child:${GATE_TYPE}`, 'cancel-requested', 'cancel-out', 'closed:canceled'],
  // The gate handles the cancel itself: it records `approval.cancelled` and completes with its state.
  'run-cancel.approvalGateWorkflow': ['cancel-requested', 'activity:recordAuditEvent', 'closed:completed'],
};

beforeAll(installQuietRuntime);

describe('agentRunWorkflow replay', () => {
  it('has a run history for every recorded path and a gate history for every path that opens a gate', () => {
    const expected = Object.entries(RUN_PATHS).flatMap(([name, p]) => [`${name}.${RUN_TYPE}.json`, ...(p.expect.gate ? [`${name}.${GATE_TYPE}.json`] : [])]);
    expect(files).toEqual(expected.sort());
  });

  it.each(files)('reads %s as a closed history of the workflow type its name gives', (file) => {
    const events = read(file).events ?? [];
    expect(events[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name).toBe(idOf(file).split('.')[1]);
    const last = events[events.length - 1];
    expect(last?.workflowExecutionCompletedEventAttributes ?? last?.workflowExecutionCanceledEventAttributes).toBeTruthy();
  });

  it.each(files)('%s shows what its path is named for', (file) => {
    expect([...marks(read(file))]).toEqual(expect.arrayContaining(COVERS[idOf(file)] ?? ['a COVERS entry for this file']));
  });

  it('opens one gate for a rejected call and blocks the identical retry without a second', () => {
    expect(childGateIds(read(`trip-reject.${RUN_TYPE}.json`))).toHaveLength(1);
  });

  it('replays every recorded run and gate history without a determinism error', async () => {
    const results: { workflowId: string; error?: unknown }[] = [];
    const histories = files.map((f) => ({ workflowId: idOf(f), history: read(f) }));
    for await (const r of Worker.runReplayHistories({ ...currentCode(), replayName: 'agent-run-replay' }, histories)) results.push(r);
    expect(results.map((r) => r.workflowId).sort()).toEqual(files.map(idOf));
    for (const r of results) expect({ workflowId: r.workflowId, error: r.error ?? null }).toEqual({ workflowId: r.workflowId, error: null });
  });

  it('catches an agentRun changed in a non-replay-safe way', async () => {
    // A variant that does one more thing (a timer) before the run's first command.
    const code = await bundleDelayedVariant('agentRunWorkflow', 'agent-run', [{ name: 'approvalGateWorkflow', file: 'approval-gate' }]);
    const file = `trip-approve.${RUN_TYPE}.json`;
    await expect(Worker.runReplayHistory({ workflowBundle: { code }, replayName: 'agent-run-replay-variant' }, read(file), idOf(file))).rejects.toBeInstanceOf(DeterminismViolationError);
  });
});
