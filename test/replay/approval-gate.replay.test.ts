import fs from 'node:fs';
import path from 'node:path';
import { Worker } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { bundleDelayedVariant, currentCode, installQuietRuntime } from './replay-support';
import { decodeHistory, gateHistoriesDir, HISTORY_VERSIONS, patchIdsOf } from './history-codec';

/**
 * Replays checked-in approvalGate histories (recorded by `record-histories.ts`) against
 * today's workflow code. A failure here means a change would break gates already running
 * in production: version it with `patched()` instead of re-recording.
 */

/** Every recorded gate history of every version, as `<version>/<file>`. */
const files = HISTORY_VERSIONS.flatMap((v) =>
  fs
    .readdirSync(gateHistoriesDir(v))
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => `${v}/${f}`),
);
const pathOf = (file: string): string => {
  const [v, name] = file.split('/') as [(typeof HISTORY_VERSIONS)[number], string];
  return path.join(gateHistoriesDir(v), name);
};
const idOf = (file: string): string => file.replace('/', '-').replace(/\.json$/, '');

function histories(): { workflowId: string; history: ReturnType<typeof decodeHistory> }[] {
  return files.map((f) => ({ workflowId: idOf(f), history: decodeHistory(fs.readFileSync(pathOf(f), 'utf8')) }));
}

beforeAll(installQuietRuntime);

describe('approvalGateWorkflow replay', () => {
  const isFlood = (f: string): boolean => /\/flood-continue\.\d+\.json$/.test(f);
  const isRoles = (f: string): boolean => f.endsWith('/reviewer-roles.json');

  it('has the three recorded paths checked in for every version', () => {
    const paths = ['approve-consume.json', 'reject-signal.json', 'ttl-expiry.json'];
    expect(files.filter((f) => !isFlood(f) && !isRoles(f))).toEqual(
      HISTORY_VERSIONS.flatMap((v) => paths.map((p) => `${v}/${p}`)),
    );
  });

  it('has, since v5, a flooded gate recorded in several executions: each but the last continued as new', () => {
    const flood = files.filter((f) => f.startsWith('v5/') && isFlood(f));
    expect(flood.length).toBeGreaterThanOrEqual(2);
    flood.forEach((f, i) => {
      const events = decodeHistory(fs.readFileSync(pathOf(f), 'utf8')).events ?? [];
      const last = events[events.length - 1];
      if (i < flood.length - 1) expect(last?.workflowExecutionContinuedAsNewEventAttributes).toBeTruthy();
      else expect(last?.workflowExecutionCompletedEventAttributes).toBeTruthy();
      // The later executions start from what the one before handed over.
      const started = events[0]?.workflowExecutionStartedEventAttributes;
      expect(Boolean(started?.continuedExecutionRunId)).toBe(i > 0);
    });
  });

  it('has, since v7, a gate whose evidence names reviewer roles: refused by signal, approved by two', () => {
    const roles = files.filter(isRoles);
    expect(roles).toEqual(
      HISTORY_VERSIONS.slice(HISTORY_VERSIONS.indexOf('v7')).map((v) => `${v}/reviewer-roles.json`),
    );
    for (const f of roles) {
      const events = decodeHistory(fs.readFileSync(pathOf(f), 'utf8')).events ?? [];
      const data = events[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0]?.data;
      const input = JSON.parse(Buffer.from(data!).toString('utf8')) as {
        payload: { reviewer_policy?: unknown };
        patch_baseline?: string;
      };
      expect(input.payload.reviewer_policy).toMatchObject({ roles: ['finance'], approvals_required: 2 });
      // The roles path is taken through a patch marker until v11, and since v12 through the baseline its creator declared.
      if (f.startsWith('v12/')) expect(input.patch_baseline).toBe('gate-baseline-v4');
      else expect(markers(f)).toContain('core_patch');
      expect(events.filter((e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'decide')).toHaveLength(1);
      expect(
        events.filter(
          (e) => e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name === 'decide',
        ),
      ).toHaveLength(2);
    }
  });

  const activities = (f: string): string[] =>
    (decodeHistory(fs.readFileSync(pathOf(f), 'utf8')).events ?? []).flatMap(
      (e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? [],
    );
  const markers = (f: string): string[] =>
    (decodeHistory(fs.readFileSync(pathOf(f), 'utf8')).events ?? []).flatMap(
      (e) => e.markerRecordedEventAttributes?.markerName ?? [],
    );

  it('has v2 histories on the batched trail written by local activities, no per-event activity', () => {
    for (const f of files.filter((x) => x.startsWith('v2/'))) {
      expect(markers(f)).toEqual(expect.arrayContaining(['core_patch', 'core_local_activity']));
      expect(activities(f)).not.toContain('recordAuditEvent');
    }
  });

  it('has v3 histories on the durable trail: one recordAuditEvents activity per task, never before the task completes', () => {
    for (const f of files.filter((x) => x.startsWith('v3/'))) {
      expect(activities(f)).toContain('recordAuditEvents');
      expect(activities(f)).not.toContain('recordAuditEvent');
      expect(markers(f)).not.toContain('core_local_activity');
    }
  });

  it('has v4 histories whose creator wrote the first event: no store write before the first decision', () => {
    for (const f of files.filter((x) => x.startsWith('v4/'))) {
      const events = decodeHistory(fs.readFileSync(pathOf(f), 'utf8')).events ?? [];
      const firstWrite = events.findIndex((e) => e.activityTaskScheduledEventAttributes);
      const firstMessage = events.findIndex(
        (e) =>
          e.workflowExecutionUpdateAcceptedEventAttributes ??
          e.workflowExecutionSignaledEventAttributes ??
          e.timerFiredEventAttributes,
      );
      expect(firstMessage).toBeGreaterThan(0);
      expect(firstWrite).toBeGreaterThan(firstMessage);
      expect(activities(f)).toContain('recordAuditEvents');
    }
  });

  it('has a v6 lifecycle whose updates’ caller wrote their events: one store write, after the consume, and one patch marker', () => {
    const events = decodeHistory(fs.readFileSync(pathOf('v6/approve-consume.json'), 'utf8')).events ?? [];
    const writes = events.flatMap((e, i) => (e.activityTaskScheduledEventAttributes ? [i] : []));
    const updates = events.flatMap((e, i) => (e.workflowExecutionUpdateCompletedEventAttributes ? [i] : []));
    expect(updates).toHaveLength(2);
    expect(writes.filter((i) => i > updates[1]!).length).toBeGreaterThanOrEqual(1);
    expect(activities('v6/approve-consume.json').filter((a) => a === 'recordAuditEvents')).toHaveLength(1);
    const patches = patchIdsOf(events);
    expect(patches).toEqual(['gate-baseline-v1']); // the baseline stands for every earlier patch
  });

  it('has v8 gates under the second patch baseline, its one marker', () => {
    for (const f of files.filter((x) => x.startsWith('v8/'))) {
      const events = decodeHistory(fs.readFileSync(pathOf(f), 'utf8')).events ?? [];
      const patches = patchIdsOf(events);
      expect(patches).toEqual(['gate-baseline-v2']);
    }
  });

  it('has v9 gates under the third patch baseline; an intent-recorded lifecycle sends nothing to the store', () => {
    for (const f of files.filter((x) => x.startsWith('v9/'))) {
      const events = decodeHistory(fs.readFileSync(pathOf(f), 'utf8')).events ?? [];
      const patches = patchIdsOf(events);
      expect(patches).toEqual(['gate-baseline-v3']);
    }
    // The v8 lifecycle sent its caller-written events once more at its end; v9's callers hold intents for them.
    expect(activities('v8/approve-consume.json').filter((a) => a === 'recordAuditEvents')).toHaveLength(1);
    expect(activities('v9/approve-consume.json')).toEqual([]);
  });

  it('has v11 gates under the fourth patch baseline, whose deadlines never cancel a timer', () => {
    const timers = (f: string) => {
      const events = decodeHistory(fs.readFileSync(pathOf(f), 'utf8')).events ?? [];
      const seconds = new Map(
        events.flatMap((e) => {
          const t = e.timerStartedEventAttributes;
          return t ? [[t.timerId, Number(t.startToFireTimeout?.seconds ?? 0)] as const] : [];
        }),
      );
      const cancelled = events.flatMap((e) =>
        e.timerCanceledEventAttributes ? [e.timerCanceledEventAttributes.timerId] : [],
      );
      return { started: seconds.size, cancelled: cancelled.map((id) => seconds.get(id)) };
    };
    for (const f of files.filter((x) => x.startsWith('v11/'))) {
      expect(patchIdsOf(decodeHistory(fs.readFileSync(pathOf(f), 'utf8')).events ?? [])).toEqual(['gate-baseline-v4']);
      // Only the 3-second grace a finishing gate gives its webhook deliveries (AuditTrail.flush) is ever cancelled.
      expect(timers(f).cancelled.filter((s) => s !== 3)).toEqual([]);
    }
    // The same lifecycle started a timer for the TTL and one for the (earlier) consume deadline in both
    // versions; v10 cancelled both when the approval and the consume arrived, v11 neither.
    expect(timers('v10/approve-consume.json')).toMatchObject({ started: 2, cancelled: [expect.any(Number), 600] });
    expect(timers('v11/approve-consume.json')).toEqual({ started: 2, cancelled: [] });
  });

  it('has v12 gates on the baseline their creator declared: no patch marker, no TemporalChangeVersion upsert', () => {
    const v12 = files.filter((x) => x.startsWith('v12/'));
    expect(v12.length).toBeGreaterThan(0);
    for (const f of v12) {
      const events = decodeHistory(fs.readFileSync(pathOf(f), 'utf8')).events ?? [];
      expect(patchIdsOf(events)).toEqual([]);
      const upserted = events.flatMap((e) =>
        Object.keys(e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields ?? {}),
      );
      expect(upserted).not.toContain('TemporalChangeVersion');
      const input = events[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0]?.data;
      expect(JSON.parse(Buffer.from(input!).toString('utf8'))).toMatchObject({ patch_baseline: 'gate-baseline-v4' });
    }
    // The same lifecycle as v11, two events shorter (the marker and its upsert).
    const length = (f: string) => (decodeHistory(fs.readFileSync(pathOf(f), 'utf8')).events ?? []).length;
    expect(length('v12/approve-consume.json')).toBe(length('v11/approve-consume.json') - 2);
  });

  it.each(files)('reads %s as a complete approvalGateWorkflow history', (file) => {
    const h = decodeHistory(fs.readFileSync(pathOf(file), 'utf8'));
    const events = h.events ?? [];
    expect(events[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name).toBe('approvalGateWorkflow');
    const last = events[events.length - 1];
    expect(
      last?.workflowExecutionCompletedEventAttributes ?? last?.workflowExecutionContinuedAsNewEventAttributes,
    ).toBeTruthy();
  });

  it('replays every recorded history without a determinism error', async () => {
    const results: { workflowId: string; error?: unknown }[] = [];
    for await (const r of Worker.runReplayHistories(
      { ...currentCode(), replayName: 'approval-gate-replay' },
      histories(),
    ))
      results.push(r);
    expect(results.map((r) => r.workflowId).sort()).toEqual(files.map(idOf).sort());
    for (const r of results)
      expect({ workflowId: r.workflowId, error: r.error ?? null }).toEqual({ workflowId: r.workflowId, error: null });
  });

  it('catches a workflow changed in a non-replay-safe way', async () => {
    // A variant that does one more thing (a timer) before the gate's first command.
    const code = await bundleDelayedVariant('approvalGateWorkflow', 'approval-gate');
    const [first] = histories();
    await expect(
      Worker.runReplayHistory(
        { workflowBundle: { code }, replayName: 'approval-gate-replay-variant' },
        first!.history,
        first!.workflowId,
      ),
    ).rejects.toBeInstanceOf(DeterminismViolationError);
  });
});
