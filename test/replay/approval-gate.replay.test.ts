import { Worker } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { firstPayload, historyFiles, readHistory, releases, replayId } from './history-codec';
import {
  bundleDelayedVariant,
  currentCode,
  CURRENT_RELEASE,
  describeCorpus,
  expectAllReplayed,
  installQuietRuntime,
  replayErrors,
  type Covers,
} from './replay-support';

/**
 * Replays the gates of every release (test/replay/histories/<version>/gate/, created as the
 * API creates them) against today's workflow code. A failure here means a change would
 * break gates already open on a release: guard it with `patched()` (docs/upgrading.md).
 */

const files = historyFiles('gate');

/** What each gate path must show (test/replay/recorder/gate-paths.ts records them). */
const COVERS: Covers = {
  // The client wrote every event itself, so the gate sends nothing to the store.
  'approve-consume.approvalGateWorkflow': ['decide:approve', 'update:consume', 'closed:completed'],
  'quorum-consume.approvalGateWorkflow': [
    'event:approval.vote_recorded',
    'event:approval.approved',
    'event:approval.consumed',
    'activity:deliverWebhooks',
  ],
  'modify-consume.approvalGateWorkflow': ['decide:modify', 'update:consume', 'closed:completed'],
  'reject-update.approvalGateWorkflow': ['update:decide', 'decide:reject', 'event:approval.denied'],
  'reject-signal.approvalGateWorkflow': ['signal:decide', 'decide:reject', 'event:approval.denied'],
  'ttl-expiry.approvalGateWorkflow': ['timer-fired', 'event:approval.escalated', 'event:approval.expired'],
  'consume-expiry.approvalGateWorkflow': ['decide:approve', 'timer-fired', 'event:approval.expired'],
  'cancel.approvalGateWorkflow': ['update:cancel', 'event:approval.cancelled'],
  'continue-as-new.approvalGateWorkflow': [
    'signal:decide',
    'event:decision.refused',
    'closed:continued-as-new',
    'update:consume',
    'event:approval.consumed',
    'closed:completed',
  ],
  'reviewer-roles.approvalGateWorkflow': [
    'signal:decide',
    'event:decision.refused',
    'event:approval.vote_recorded',
    'event:approval.approved',
    'update:consume',
  ],
};

beforeAll(installQuietRuntime);

describe('approvalGateWorkflow replay', () => {
  it('finds every release folder, the current release among them', () => {
    expect(releases()).toContain(CURRENT_RELEASE);
    expect(new Set(files.map((f) => f.release))).toEqual(new Set(releases()));
  });

  describeCorpus('gate', files, COVERS);

  it('has a reviewer-roles gate whose evidence names the finance rule, refused once by signal', () => {
    for (const f of files.filter((x) => x.path === 'reviewer-roles')) {
      const events = readHistory(f).events ?? [];
      const input = firstPayload(events[0]?.workflowExecutionStartedEventAttributes?.input) as {
        payload: { reviewer_policy?: unknown };
      };
      expect(input.payload.reviewer_policy).toMatchObject({ roles: ['finance'], approvals_required: 2 });
      expect(events.filter((e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'decide')).toHaveLength(1);
    }
  });

  it('replays every recorded gate without a determinism error', async () => {
    expectAllReplayed(files, await replayErrors(currentCode(), files));
  });

  it('catches a gate changed in a non-replay-safe way', async () => {
    // A variant that does one more thing (a timer) before the gate's first command.
    const code = await bundleDelayedVariant('approvalGateWorkflow', 'gate/approval-gate');
    const first = files[0]!;
    await expect(
      Worker.runReplayHistory(
        { workflowBundle: { code }, replayName: 'approval-gate-replay-variant' },
        readHistory(first),
        replayId(first),
      ),
    ).rejects.toBeInstanceOf(DeterminismViolationError);
  });
});
