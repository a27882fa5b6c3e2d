import { firstPayload, historyFiles, readHistory, replayId, type HistoryFile } from './history-codec';
import {
  bundle,
  currentCode,
  describeCorpus,
  expectAllReplayed,
  installQuietRuntime,
  replayErrors,
  type Covers,
  type CoversAfter,
} from './replay-support';

/**
 * Replays the user workflows of every release that open gates with the workflow API
 * (`requireApproval`, `withApproval`; the workflows of test/fixtures/library) and their
 * gates (test/replay/histories/<version>/workflow/) against today's code.
 */

const files = historyFiles('workflow');
const GATE_TYPE = 'approvalGateWorkflow';
const parents = files.filter((f) => f.type !== GATE_TYPE);
const gates = files.filter((f) => f.type === GATE_TYPE);

/** A parent that asks the rule file, then opens its gate and, approved, runs the refund. */
const PARENT = ['activity:resolveReviewers', 'child:approvalGateWorkflow', 'activity:refund', 'closed:completed'];
/** A gate under the refund rule: an ineligible vote by signal, two finance votes by update. */
const GATE = ['signal:decide', 'update:decide', 'event:decision.refused', 'event:approval.approved'];

/** What each path must show (test/replay/recorder/workflow-paths.ts records them). */
const COVERS: Covers = {
  'require-approval.refundWorkflow': PARENT,
  'require-approval.approvalGateWorkflow': GATE,
  'with-approval.gatedRefundWorkflow': PARENT,
  // withApproval re-checks before the gated activity runs.
  'with-approval.approvalGateWorkflow': [...GATE, 'activity:refundStillValid', 'event:snapshot.verified'],
};

/** A parent whose gate the worker's rule file judged (src/workflow/open-gate.ts): the releases after 0.1.0. */
const JUDGED = [
  'patch:workflow-gate-judged',
  'activity:evaluatePolicy',
  'child:approvalGateWorkflow',
  'closed:completed',
];
/** A gate the rule file decided at creation (src/workflow/gate/policy-at-creation.ts). */
const AT_CREATION = 'patch:policy-at-creation';

/**
 * What the releases after 0.1.0 record: the judged parents, and the paths under a version 2
 * file (recorder/judged-workflow-paths.ts); after 0.2.0, a gate told the worker's GATE_NOTIFY.
 */
const LATER: CoversAfter[] = [
  {
    after: '0.1.0',
    covers: {
      'require-approval.refundWorkflow': [...JUDGED, 'activity:refund'],
      'with-approval.gatedRefundWorkflow': [...JUDGED, 'activity:refund'],
      'require-approval-allow.refundWorkflow': [...JUDGED, 'activity:refund'],
      'require-approval-allow.approvalGateWorkflow': [AT_CREATION, 'event:approval.approved'],
      'require-approval-block.refundWorkflow': JUDGED,
      'require-approval-block.approvalGateWorkflow': [AT_CREATION, 'event:approval.denied'],
      'require-approval-require.refundWorkflow': [...JUDGED, 'activity:refund'],
      'require-approval-require.approvalGateWorkflow': GATE,
      'with-approval-allow.gatedRefundWorkflow': [...JUDGED, 'activity:refund'],
      // Approved by the rule, the gate still re-checks before the hand-over.
      'with-approval-allow.approvalGateWorkflow': [
        AT_CREATION,
        'event:approval.approved',
        'activity:refundStillValid',
        'event:snapshot.verified',
      ],
      'with-approval-block.gatedRefundWorkflow': JUDGED,
      'with-approval-block.approvalGateWorkflow': [AT_CREATION, 'event:approval.denied'],
      'with-approval-require.gatedRefundWorkflow': [...JUDGED, 'activity:refund'],
      'with-approval-require.approvalGateWorkflow': [...GATE, 'activity:refundStillValid', 'event:snapshot.verified'],
    },
  },
  {
    // A worker's GATE_NOTIFY tells of a gate whose request and rule name nobody (src/workflow/open-gate.ts).
    after: '0.2.0',
    covers: {
      'require-approval-notify-default.refundWorkflow': [
        ...JUDGED,
        'patch:workflow-gate-notify-defaults',
        'activity:refund',
      ],
      'require-approval-notify-default.approvalGateWorkflow': [...GATE, 'patch:gate-notices', 'activity:deliverNotice'],
    },
  },
];

/** The paths recorded under 0.1.0's refund rule (a version 1 file). */
const UNDER_REFUND_RULE = new Set(['require-approval', 'with-approval', 'require-approval-notify-default']);

/** The parent's workflow id when it was recorded: its first gate is `<id>-approval-1`. */
function recordedIdOf(f: HistoryFile): string {
  const child = (readHistory(f).events ?? []).find((e) => e.startChildWorkflowExecutionInitiatedEventAttributes);
  return child!.startChildWorkflowExecutionInitiatedEventAttributes!.workflowId!.replace(/-approval-1$/, '');
}

beforeAll(installQuietRuntime);

describe('workflow API replay (requireApproval, withApproval)', () => {
  describeCorpus('workflow', files, COVERS, LATER);

  const underRefundRule = parents.filter((f) => UNDER_REFUND_RULE.has(f.path));
  it.each(underRefundRule.map(replayId))('%s starts its gate in tenant acme under the refund rule', (id) => {
    for (const f of underRefundRule.filter((x) => replayId(x) === id)) {
      const events = readHistory(f).events ?? [];
      const start = events.find(
        (e) => e.startChildWorkflowExecutionInitiatedEventAttributes,
      )!.startChildWorkflowExecutionInitiatedEventAttributes!;
      const tenant = start.searchAttributes?.indexedFields?.GateTenant;
      expect(firstPayload({ payloads: tenant ? [tenant] : [] })).toBe('acme');
      const input = firstPayload(start.input) as { payload: { reviewer_policy?: unknown }; approvals_required: number };
      expect(input.payload.reviewer_policy).toMatchObject({ rule: 'refund.*', roles: ['finance'] });
      expect(input.approvals_required).toBe(2);
    }
  });

  it('refunds nothing when the rule file blocked the gate', () => {
    for (const f of parents.filter((x) => x.path.endsWith('-block'))) {
      const refunds = (readHistory(f).events ?? []).filter(
        (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'refund',
      );
      expect({ file: replayId(f), refunds }).toEqual({ file: replayId(f), refunds: [] });
    }
  });

  it('replays every recorded parent and gate without a determinism error', async () => {
    // A parent replays under its recorded id: its gate's default request id is derived from it.
    const code = await bundle(require.resolve('../fixtures/library/workflows'));
    const errors = {
      ...(await replayErrors({ workflowBundle: { code } }, parents, recordedIdOf)),
      ...(await replayErrors(currentCode(), gates)),
    };
    expectAllReplayed(files, errors);
  }, 120_000);
});
