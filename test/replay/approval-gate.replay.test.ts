import { Worker } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { firstPayload, historyFiles, readHistory, releases, replayId, type HistoryFile } from './history-codec';
import {
  bundleDelayedVariant,
  currentCode,
  CURRENT_RELEASE,
  describeCorpus,
  expectAllReplayed,
  installQuietRuntime,
  replayErrors,
  type Covers,
  type CoversAfter,
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

/** The patch of gates decided at creation or with shadow verdicts (src/workflow/gate/policy-at-creation.ts). */
const AT_CREATION = 'patch:policy-at-creation';

/** The patch of gates that store the grants they give (src/workflow/gate/grant-issue.ts). */
const STORES_GRANT = 'patch:gate-stores-grant';

/** The patch of gates that tell reviewers (src/workflow/gate/notices.ts). */
const NOTICES = 'patch:gate-notices';

/** The patch of gates whose clock never runs behind a fired timer (src/workflow/gate/deadlines.ts). */
const TIMER_CLOCK = 'patch:gate-timer-clock';

/**
 * Paths of the releases after 0.1.0: gates under a version 2 rule file (recorder/judged-gate-paths.ts),
 * gates that tell reviewers (recorder/notice-paths.ts); after 0.2.0, gates that store their grants;
 * after 0.3.0, the chain's gates on the gate's clock.
 */
const LATER: CoversAfter[] = [
  {
    after: '0.1.0',
    covers: {
      'chain-expiry.approvalGateWorkflow': [
        NOTICES,
        'activity:deliverNotice',
        'event:approval.escalated',
        'event:approval.expired',
      ],
      'decided-between-levels.approvalGateWorkflow': [
        NOTICES,
        'event:approval.escalated',
        'event:approval.approved',
        'event:approval.consumed',
      ],
      'notified-ended.approvalGateWorkflow': [NOTICES, 'activity:deliverNotice', 'event:approval.denied'],
      'policy-allow.approvalGateWorkflow': [AT_CREATION, 'event:approval.approved', 'event:approval.consumed'],
      'policy-block.approvalGateWorkflow': [AT_CREATION, 'event:policy.shadow', 'event:approval.denied'],
      'policy-shadow.approvalGateWorkflow': [
        AT_CREATION,
        'event:policy.shadow',
        'decide:approve',
        'event:approval.approved',
        'event:approval.consumed',
      ],
      'grant-issue.approvalGateWorkflow': [
        'decide:approve',
        'event:approval.vote_recorded',
        'event:approval.approved',
        'event:approval.consumed',
      ],
      'grant-use.approvalGateWorkflow': [AT_CREATION, 'event:grant.used', 'event:approval.consumed'],
    },
  },
  {
    // The gate stores the standing grants its quorum gives (src/workflow/gate/grant-issue.ts).
    after: '0.2.0',
    covers: {
      'grant-issue.approvalGateWorkflow': [
        'decide:approve',
        'event:approval.vote_recorded',
        'event:approval.approved',
        STORES_GRANT,
        'activity:issueGrant',
        'event:approval.consumed',
      ],
      'grant-by-signal.approvalGateWorkflow': [
        AT_CREATION,
        'signal:decide',
        'event:approval.approved',
        STORES_GRANT,
        'activity:issueGrant',
        'event:approval.consumed',
      ],
    },
  },
  {
    // Every gate asks for the patch gate-timer-clock at its start; the chain's gates show its timers.
    after: '0.3.0',
    covers: {
      'chain-expiry.approvalGateWorkflow': [
        NOTICES,
        TIMER_CLOCK,
        'activity:deliverNotice',
        'event:approval.escalated',
        'event:approval.expired',
      ],
      'decided-between-levels.approvalGateWorkflow': [
        NOTICES,
        TIMER_CLOCK,
        'event:approval.escalated',
        'event:approval.approved',
        'event:approval.consumed',
      ],
    },
  },
];

/** The audit events a gate sent to the store, in order. */
function eventsOf(f: HistoryFile): { event_type: string; actor_id: string; data?: Record<string, unknown> }[] {
  return (readHistory(f).events ?? []).flatMap((e) => {
    const a = e.activityTaskScheduledEventAttributes;
    return a?.activityType?.name === 'recordAuditEvents'
      ? (firstPayload(a.input) as { events: { event_type: string; actor_id: string }[] }).events
      : [];
  });
}

beforeAll(installQuietRuntime);

describe('approvalGateWorkflow replay', () => {
  it('finds every release folder, the current release among them', () => {
    expect(releases()).toContain(CURRENT_RELEASE);
    expect(new Set(files.map((f) => f.release))).toEqual(new Set(releases()));
  });

  describeCorpus('gate', files, COVERS, LATER);

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

  it('has grant-use gates approved at creation by the grant that the grant-issue quorum of their release gave', () => {
    for (const release of new Set(files.filter((f) => f.path === 'grant-use').map((f) => f.release))) {
      const inRelease = files.filter((f) => f.release === release);
      const issued = eventsOf(inRelease.find((f) => f.path === 'grant-issue')!).find(
        (e) => e.event_type === 'approval.approved',
      )?.data?.grant as { grant_id: string } | undefined;
      expect(issued?.grant_id).toEqual(expect.any(String));
      const used = eventsOf(inRelease.find((f) => f.path === 'grant-use')!);
      expect(used.find((e) => e.event_type === 'approval.approved')?.actor_id).toBe(`grant:${issued!.grant_id}`);
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
