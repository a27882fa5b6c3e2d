import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import { workflowBundlerOptions } from '../../src/worker/bundle-options';
import { currentCode, installQuietRuntime } from './replay-support';
import { historySet, WORKFLOW_SET_VERSIONS, workflowHistoriesDir, type History } from './history-codec';
import { GATE_TYPE, WORKFLOW_PATHS } from './record-histories';

/**
 * Replays the checked-in histories of user workflows that open gates with the workflow
 * API (`requireApproval`, `withApproval`; the workflows of test/fixtures/library) and of
 * their gates, against today's code. The parents guard `openGate` (the rule file's
 * activity and the tenant, patch workflow-gate-policy-tenant-v1); the gates guard the
 * reviewer-roles path of gates a workflow opened.
 */

const { files, nameOf, read, idOf } = historySet(WORKFLOW_SET_VERSIONS, workflowHistoriesDir);
const isGate = (file: string): boolean => nameOf(file).endsWith(`.${GATE_TYPE}`);

/** The JSON of the first payload of a start or scheduling event. */
function firstPayload(p: { payloads?: { data?: Uint8Array | null }[] | null } | null | undefined): unknown {
  const data = p?.payloads?.[0]?.data;
  return data ? JSON.parse(Buffer.from(data).toString('utf8')) : undefined;
}

/** The parent's workflow id when it was recorded: its first gate is `<id>-approval-1`. */
function recordedIdOf(h: History): string {
  const child = (h.events ?? []).find((e) => e.startChildWorkflowExecutionInitiatedEventAttributes);
  return child!.startChildWorkflowExecutionInitiatedEventAttributes!.workflowId!.replace(/-approval-1$/, '');
}

beforeAll(installQuietRuntime);

describe('workflow API replay (requireApproval, withApproval)', () => {
  it('has a parent and a gate history for every recorded path, in every version with the set', () => {
    const expected = Object.entries(WORKFLOW_PATHS)
      .flatMap(([name, p]) => [`${name}.${p.type}.json`, `${name}.${GATE_TYPE}.json`])
      .sort();
    expect(files).toEqual(WORKFLOW_SET_VERSIONS.flatMap((v) => expected.map((f) => `${v}/${f}`)));
  });

  it.each(files.filter((f) => !isGate(f)))('%s asks the rule file before it starts its gate in tenant acme', (file) => {
    const events = read(file).events ?? [];
    const scheduled = events.findIndex(
      (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'resolveReviewers',
    );
    const child = events.findIndex((e) => e.startChildWorkflowExecutionInitiatedEventAttributes);
    expect(scheduled).toBeGreaterThan(0);
    expect(child).toBeGreaterThan(scheduled);
    const markers = events.flatMap((e) => e.markerRecordedEventAttributes?.markerName ?? []);
    expect(markers).toContain('core_patch');
    const start = events[child]!.startChildWorkflowExecutionInitiatedEventAttributes!;
    const tenant = start.searchAttributes?.indexedFields?.GateTenant;
    expect(firstPayload({ payloads: tenant ? [tenant] : [] })).toBe('acme');
    const input = firstPayload(start.input) as { payload: { reviewer_policy?: unknown }; approvals_required: number };
    expect(input.payload.reviewer_policy).toMatchObject({ rule: 'refund.*', roles: ['finance'] });
    expect(input.approvals_required).toBe(2);
    expect(events[events.length - 1]?.workflowExecutionCompletedEventAttributes).toBeTruthy();
  });

  it.each(files.filter(isGate))('%s refused the ineligible vote by signal and took two by update', (file) => {
    const events = read(file).events ?? [];
    expect(events.filter((e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'decide')).toHaveLength(1);
    expect(
      events.filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name === 'decide'),
    ).toHaveLength(2);
    expect(events[events.length - 1]?.workflowExecutionCompletedEventAttributes).toBeTruthy();
  });

  it('replays every recorded parent and gate history without a determinism error', async () => {
    const parents = files.filter((f) => !isGate(f));
    const gates = files.filter(isGate);
    const { code } = await bundleWorkflowCode({
      workflowsPath: require.resolve('../fixtures/library/workflows'),
      ...workflowBundlerOptions(),
      logger: {
        log: () => undefined,
        trace: () => undefined,
        debug: () => undefined,
        info: () => undefined,
        warn: () => undefined,
        error: () => undefined,
      },
    });
    const results: { workflowId: string; error?: unknown }[] = [];
    for await (const r of Worker.runReplayHistories(
      { workflowBundle: { code }, replayName: 'workflow-api-replay' },
      // A parent replays under its recorded id: its gate's default request id is derived from it.
      parents.map((f) => ({ workflowId: recordedIdOf(read(f)), history: read(f) })),
    ))
      results.push({ ...r, workflowId: idOf(parents.find((f) => recordedIdOf(read(f)) === r.workflowId)!) });
    for await (const r of Worker.runReplayHistories(
      { ...currentCode(), replayName: 'workflow-api-gate-replay' },
      gates.map((f) => ({ workflowId: idOf(f), history: read(f) })),
    ))
      results.push(r);
    expect(results.map((r) => r.workflowId).sort()).toEqual(files.map(idOf).sort());
    for (const r of results)
      expect({ workflowId: r.workflowId, error: r.error ?? null }).toEqual({ workflowId: r.workflowId, error: null });
  }, 120_000);
});
