import { Worker } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { bundleDelayedVariant, currentCode, installQuietRuntime } from './replay-support';
import {
  historySet,
  HISTORY_VERSIONS,
  patchIdsOf,
  runHistoriesDir,
  type History,
  type HistoryVersion,
} from './history-codec';
import { childGateIds, GATE_TYPE, pathVersions, RUN_PATHS, RUN_TYPE } from './record-histories';

/**
 * Replays the checked-in agentRun histories and their child gates' (recorded by
 * `record-histories.ts agent-run`) against today's workflow code. A failure here means a
 * change would break runs or tool gates already in flight: version it with `patched()`
 * instead of re-recording.
 */

/** Every recorded run and gate history of every version, as `<version>/<file>`. */
const { files, versionOf, nameOf, read, idOf } = historySet(HISTORY_VERSIONS, runHistoriesDir);

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
    const m = e.markerRecordedEventAttributes?.markerName;
    if (m) out.add(`marker:${m}`);
  }
  return out;
}

/** What each v1 recording must show for it to cover the path it is named for. */
const COVERS_V1: Record<string, string[]> = {
  'trip-approve.agentRunWorkflow': [
    'activity:callModel',
    'activity:planToolCall',
    'activity:executeTool',
    `child:${GATE_TYPE}`,
    'closed:completed',
  ],
  'trip-approve.approvalGateWorkflow': [
    'update:decide',
    'activity:recheckSnapshot',
    'activity:executeTool',
    'closed:completed',
  ],
  'trip-modify.agentRunWorkflow': ['signal:argsFinalized', `child:${GATE_TYPE}`, 'closed:completed'],
  'trip-modify.approvalGateWorkflow': [
    'update:decide',
    'activity:reviseToolCall',
    'signal-out:argsFinalized',
    'activity:executeTool',
    'closed:completed',
  ],
  'trip-reject.agentRunWorkflow': [`child:${GATE_TYPE}`, 'closed:completed'],
  'trip-reject.approvalGateWorkflow': ['update:decide', 'closed:completed'],
  'trip-batch.agentRunWorkflow': [`child:${GATE_TYPE}`, 'activity:executeTool', 'closed:completed'],
  'trip-batch.approvalGateWorkflow': ['update:decide', 'activity:executeTool', 'closed:completed'],
  'ask-user.agentRunWorkflow': ['update:respondInteraction', 'closed:completed'],
  'run-cancel.agentRunWorkflow': [`child:${GATE_TYPE}`, 'cancel-requested', 'cancel-out', 'closed:canceled'],
  // The gate handles the cancel itself: it records `approval.cancelled` and completes with its state.
  'run-cancel.approvalGateWorkflow': ['cancel-requested', 'activity:recordAuditEvent', 'closed:completed'],
};

/** v3: the trail is written by one regular activity per task; the re-check stays local. */
const V3: Record<string, string[]> = Object.fromEntries(
  Object.entries(COVERS_V1).map(([name, marks]) => [
    name,
    [
      ...marks.filter((m) => m !== 'activity:recheckSnapshot' && m !== 'activity:recordAuditEvent'),
      'marker:core_patch',
      'activity:recordAuditEvents',
    ],
  ]),
);

/** v7: runs that open a gate ask the worker's rule file first (the resolveReviewers activity). */
const V7: Record<string, string[]> = {
  ...Object.fromEntries(
    Object.entries(V3).map(([name, marks]) => [
      name,
      name.endsWith(`.${RUN_TYPE}`) && marks.includes(`child:${GATE_TYPE}`)
        ? [...marks, 'activity:resolveReviewers']
        : marks,
    ]),
  ),
  'trip-roles.agentRunWorkflow': [
    'marker:core_patch',
    'activity:resolveReviewers',
    `child:${GATE_TYPE}`,
    'closed:completed',
  ],
  'trip-roles.approvalGateWorkflow': [
    'signal:decide',
    'update:decide',
    'activity:executeTool',
    'activity:recordAuditEvents',
    'closed:completed',
  ],
};

/** v8: a tool gate re-checks inside its tool's activity (`recheckAndExecuteTool`); runs are as in v7. */
const V8: Record<string, string[]> = Object.fromEntries(
  Object.entries(V7).map(([name, marks]) => [
    name,
    name.endsWith(`.${GATE_TYPE}`)
      ? marks.map((m) => (m === 'activity:executeTool' ? 'activity:recheckAndExecuteTool' : m))
      : marks,
  ]),
);

/** What each recording must show, per version. v2: audit writes and the re-check are local activities (markers). */
const COVERS: Record<HistoryVersion, Record<string, string[]>> = {
  v1: COVERS_V1,
  v2: Object.fromEntries(
    Object.entries(COVERS_V1).map(([name, marks]) => [
      name,
      [
        ...marks.filter((m) => m !== 'activity:recheckSnapshot' && m !== 'activity:recordAuditEvent'),
        'marker:core_patch',
        'marker:core_local_activity',
      ],
    ]),
  ),
  // v4: as v3 for runs and their child gates (only gates created outside a run get their first event from the creator).
  v3: V3,
  v4: V3,
  v5: V3,
  // v6: runs and their gates as v5 (only updates whose caller writes the events take the new path).
  v6: V3,
  v7: V7,
  v8: V8,
  // v9: runs and their tool gates as v8 (only external gates whose callers hold audit intents take the new path).
  v9: V8,
  // v10: runs on the conversation log; their tool gates as in v9.
  v10: V8,
  // v11: the gates' lazy deadlines (timers, not markers or activities); runs as in v10.
  v11: V8,
  // v12: the tool gates' baseline declared by their run (no patch marker in the gate's history); runs as in v11.
  v12: Object.fromEntries(
    Object.entries(V8).map(([name, marks]) => [
      name,
      name.endsWith(`.${GATE_TYPE}`) ? marks.filter((m) => m !== 'marker:core_patch') : marks,
    ]),
  ),
};

beforeAll(installQuietRuntime);

describe('agentRunWorkflow replay', () => {
  it('has a run history for every recorded path and a gate history for every path that opens a gate, in every version', () => {
    const expected = (v: HistoryVersion): string[] =>
      Object.entries(RUN_PATHS)
        .filter(([, p]) => pathVersions(p).includes(v))
        .flatMap(([name, p]) => [`${name}.${RUN_TYPE}.json`, ...(p.expect.gate ? [`${name}.${GATE_TYPE}.json`] : [])])
        .sort();
    expect(files).toEqual(HISTORY_VERSIONS.flatMap((v) => expected(v).map((f) => `${v}/${f}`)));
  });

  it.each(['v2', 'v3', 'v4'])(
    'has %s tool gates that re-check the snapshot in a local activity, not a scheduled one',
    (v) => {
      const gate = read(`${v}/trip-approve.${GATE_TYPE}.json`);
      expect(marks(gate).has('activity:recheckSnapshot')).toBe(false);
      expect(marks(gate).has('marker:core_local_activity')).toBe(true);
      expect(marks(gate).has('activity:executeTool')).toBe(true);
    },
  );

  it('has v8 tool gates that re-check inside the tool activity: no local activity, no separate executeTool', () => {
    for (const name of ['trip-approve', 'trip-modify', 'trip-batch', 'trip-roles']) {
      const gate = marks(read(`v8/${name}.${GATE_TYPE}.json`));
      expect(gate.has('activity:recheckAndExecuteTool')).toBe(true);
      expect(gate.has('marker:core_local_activity')).toBe(false);
      expect(gate.has('activity:executeTool')).toBe(false);
      expect(gate.has('activity:recheckSnapshot')).toBe(false);
    }
  });

  /** The decoded input of every callModel the history scheduled. */
  const modelInputs = (h: History): Record<string, unknown>[] =>
    (h.events ?? []).flatMap((e) => {
      const a = e.activityTaskScheduledEventAttributes;
      const data = a?.activityType?.name === 'callModel' ? a.input?.payloads?.[0]?.data : undefined;
      return data ? [JSON.parse(Buffer.from(data).toString('utf8')) as Record<string, unknown>] : [];
    });

  it('has v10 runs on the conversation log: each model call names the stored prefix and carries only what is new', () => {
    for (const f of files.filter((x) => x.startsWith('v10/') && x.endsWith(`.${RUN_TYPE}.json`))) {
      const h = read(f);
      expect(patchIdsOf(h.events ?? [])).toContain('agent-run-conversation-log-v1');
      const inputs = modelInputs(h);
      expect(inputs.length).toBeGreaterThan(0);
      // The first call writes the goal; each later one names all that earlier calls wrote and carries the rest.
      let written = 0;
      for (const input of inputs) {
        expect(input).not.toHaveProperty('messages');
        const { prefix, tail } = input.conversation as { prefix: { count: number }; tail: unknown[] };
        expect(prefix.count).toBe(written);
        expect(tail.length).toBeGreaterThan(0);
        written += tail.length;
      }
    }
  });

  it.each(files)('reads %s as a closed history of the workflow type its name gives', (file) => {
    const events = read(file).events ?? [];
    expect(events[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name).toBe(nameOf(file).split('.')[1]);
    const last = events[events.length - 1];
    expect(
      last?.workflowExecutionCompletedEventAttributes ?? last?.workflowExecutionCanceledEventAttributes,
    ).toBeTruthy();
  });

  it.each(files)('%s shows what its path is named for', (file) => {
    expect([...marks(read(file))]).toEqual(
      expect.arrayContaining(COVERS[versionOf(file)][nameOf(file)] ?? ['a COVERS entry for this file']),
    );
  });

  it.each(HISTORY_VERSIONS)(
    'opens one gate for a rejected call and blocks the identical retry without a second (%s)',
    (v) => {
      expect(childGateIds(read(`${v}/trip-reject.${RUN_TYPE}.json`))).toHaveLength(1);
    },
  );

  it('replays every recorded run and gate history without a determinism error', async () => {
    const results: { workflowId: string; error?: unknown }[] = [];
    const histories = files.map((f) => ({ workflowId: idOf(f), history: read(f) }));
    for await (const r of Worker.runReplayHistories({ ...currentCode(), replayName: 'agent-run-replay' }, histories))
      results.push(r);
    expect(results.map((r) => r.workflowId).sort()).toEqual(files.map(idOf).sort());
    for (const r of results)
      expect({ workflowId: r.workflowId, error: r.error ?? null }).toEqual({ workflowId: r.workflowId, error: null });
  });

  it('catches an agentRun changed in a non-replay-safe way', async () => {
    // A variant that does one more thing (a timer) before the run's first command.
    const code = await bundleDelayedVariant('agentRunWorkflow', 'agent-run', [
      { name: 'approvalGateWorkflow', file: 'approval-gate' },
    ]);
    const file = `v1/trip-approve.${RUN_TYPE}.json`;
    await expect(
      Worker.runReplayHistory(
        { workflowBundle: { code }, replayName: 'agent-run-replay-variant' },
        read(file),
        idOf(file),
      ),
    ).rejects.toBeInstanceOf(DeterminismViolationError);
  });
});
