import { Worker } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { firstPayload, historyFiles, readHistory, replayId } from './history-codec';
import {
  bundleDelayedVariant,
  currentCode,
  describeCorpus,
  expectAllReplayed,
  installQuietRuntime,
  replayErrors,
  type Covers,
  type CoversAfter,
} from './replay-support';

/**
 * Replays the agent runs of every release and their tool gates
 * (test/replay/histories/<version>/agent-run/) against today's workflow code. A failure here
 * means a change would break runs or tool gates in flight on a release: guard it with
 * `patched()` (docs/upgrading.md).
 */

const files = historyFiles('agent-run');

const GATE = 'child:approvalGateWorkflow';
/** A run that asks the rule file, then opens a tool gate. */
const GATED_RUN = ['activity:callModel', 'activity:planToolCall', 'activity:resolveReviewers', GATE];
/** A tool gate that re-checks and runs its tool in one activity. */
const TOOL_GATE = [
  'update:decide',
  'activity:recheckAndExecuteTool',
  'event:snapshot.verified',
  'event:tool.succeeded',
];

/** What each run path must show (test/replay/recorder/run-paths.ts records them). */
const COVERS: Covers = {
  'trip-approve.agentRunWorkflow': [...GATED_RUN, 'activity:executeTool', 'closed:completed'],
  'trip-approve.approvalGateWorkflow': [...TOOL_GATE, 'decide:approve'],
  'trip-modify.agentRunWorkflow': [...GATED_RUN, 'signal:argsFinalized', 'closed:completed'],
  'trip-modify.approvalGateWorkflow': [
    ...TOOL_GATE,
    'decide:modify',
    'activity:reviseToolCall',
    'signal-out:argsFinalized',
    'event:approval.modified',
  ],
  // The retried identical call is blocked without a second gate.
  'trip-reject.agentRunWorkflow': [...GATED_RUN, 'event:policy.blocked', 'closed:completed'],
  'trip-reject.approvalGateWorkflow': ['decide:reject', 'event:approval.denied'],
  'trip-batch.agentRunWorkflow': [...GATED_RUN, 'activity:executeTool', 'closed:completed'],
  'trip-batch.approvalGateWorkflow': TOOL_GATE,
  'ask-user.agentRunWorkflow': ['update:respondInteraction', 'closed:completed'],
  'trip-roles.agentRunWorkflow': [...GATED_RUN, 'closed:completed'],
  'trip-roles.approvalGateWorkflow': [...TOOL_GATE, 'signal:decide', 'event:decision.refused'],
  'run-continue.agentRunWorkflow': [
    ...GATED_RUN,
    'activity:storeMessages',
    'event:run.continued',
    'closed:continued-as-new',
    'activity:loadMessages',
    'closed:completed',
  ],
  'run-continue.approvalGateWorkflow': TOOL_GATE,
  'run-cancel.agentRunWorkflow': [
    ...GATED_RUN,
    'cancel-requested',
    'cancel-out',
    'event:run.cancelled',
    'closed:canceled',
  ],
  // The gate handles the cancel itself: it records `approval.cancelled` and completes with its state.
  'run-cancel.approvalGateWorkflow': ['cancel-requested', 'event:approval.cancelled', 'closed:completed'],
};

/** A run whose calls a version 2 rule file judged (src/workflow/agent-run/tool-call.ts). */
const JUDGED_RUN = ['patch:run-call-judged', 'activity:planToolCall', 'event:policy.allowed', 'closed:completed'];

/**
 * Paths of the releases after 0.1.0: runs under a version 2 rule file (recorder/judged-run-paths.ts);
 * after 0.2.0, a tool gate told the worker's GATE_NOTIFY.
 */
const LATER: CoversAfter[] = [
  {
    after: '0.1.0',
    covers: {
      // Allowed: the tool runs without a gate; the audit rule's verdict goes to the run's trail.
      'judged-allow.agentRunWorkflow': [...JUDGED_RUN, 'activity:executeTool', 'event:policy.shadow'],
      'judged-block.agentRunWorkflow': [...JUDGED_RUN, 'event:policy.blocked'],
      'judged-require.agentRunWorkflow': [...JUDGED_RUN, GATE],
      // The gate records the audit rule's verdict at creation.
      'judged-require.approvalGateWorkflow': [...TOOL_GATE, 'patch:policy-at-creation', 'event:policy.shadow'],
    },
  },
  {
    // A worker's GATE_NOTIFY tells of a tool gate whose rule names nobody (src/workflow/agent-run/tool-call.ts).
    after: '0.2.0',
    covers: {
      'trip-notify-default.agentRunWorkflow': [...GATED_RUN, 'patch:run-call-notify-defaults', 'closed:completed'],
      'trip-notify-default.approvalGateWorkflow': [...TOOL_GATE, 'patch:gate-notices', 'activity:deliverNotice'],
    },
  },
];

beforeAll(installQuietRuntime);

describe('agentRunWorkflow replay', () => {
  describeCorpus('agent-run', files, COVERS, LATER);

  it('opens one gate for a rejected call and blocks the identical retry without a second', () => {
    for (const f of files.filter((x) => x.path === 'trip-reject' && x.type === 'agentRunWorkflow')) {
      const children = (readHistory(f).events ?? []).filter(
        (e) => e.startChildWorkflowExecutionInitiatedEventAttributes,
      );
      expect(children).toHaveLength(1);
    }
  });

  it('opens no gate for a call the rule file allowed or blocked', () => {
    for (const f of files.filter((x) => /^judged-(allow|block)$/.test(x.path))) {
      const children = (readHistory(f).events ?? []).filter(
        (e) => e.startChildWorkflowExecutionInitiatedEventAttributes,
      );
      expect({ file: replayId(f), children }).toEqual({ file: replayId(f), children: [] });
    }
  });

  it('calls the model by ref to the conversation log: no call carries the whole conversation', () => {
    for (const f of files.filter((x) => x.type === 'agentRunWorkflow')) {
      for (const e of readHistory(f).events ?? []) {
        const a = e.activityTaskScheduledEventAttributes;
        if (a?.activityType?.name !== 'callModel') continue;
        const input = firstPayload(a.input) as Record<string, unknown>;
        expect(input).not.toHaveProperty('messages');
        expect(input).toHaveProperty('conversation.prefix');
      }
    }
  });

  it('replays every recorded run and tool gate without a determinism error', async () => {
    expectAllReplayed(files, await replayErrors(currentCode(), files));
  });

  it('catches an agentRun changed in a non-replay-safe way', async () => {
    // A variant that does one more thing (a timer) before the run's first command.
    const code = await bundleDelayedVariant('agentRunWorkflow', 'agent-run/agent-run', [
      { name: 'approvalGateWorkflow', file: 'gate/approval-gate' },
    ]);
    const run = files.find((f) => f.path === 'trip-approve' && f.type === 'agentRunWorkflow')!;
    await expect(
      Worker.runReplayHistory(
        { workflowBundle: { code }, replayName: 'agent-run-replay-variant' },
        readHistory(run),
        replayId(run),
      ),
    ).rejects.toBeInstanceOf(DeterminismViolationError);
  });
});
