import { patched, workflowInfo } from '@temporalio/workflow';
import { AUDIT_BATCH_PATCH, AUDIT_DURABLE_BATCH_PATCH } from './audit-trail';

/**
 * Patch id of the gate's patch baseline: one marker that stands for every gate patch
 * released before it (the ids in BASELINE_PATCHES). Each `patched()` call records a
 * marker and makes the SDK upsert the `TemporalChangeVersion` search attribute, a
 * visibility write; a new gate called seven of them, so seven markers and seven
 * visibility writes before its first decision. Executions started on this code record
 * the baseline marker alone and take every path it covers; executions recorded before it
 * have no such marker, so on replay it answers false and each patch is asked as before.
 */
export const GATE_BASELINE_PATCH = 'gate-baseline-v1';
/**
 * The next baseline: everything of the first, and the patches released after it
 * (BASELINE_V2_PATCHES). New executions record this marker alone; those recorded with
 * the first baseline keep it (and ask the later patches on their own).
 */
export const GATE_BASELINE_V2_PATCH = 'gate-baseline-v2';

/**
 * The third baseline: everything of the second, and BASELINE_V3_PATCHES. New executions
 * record this marker alone; those recorded with an earlier baseline keep theirs.
 */
export const GATE_BASELINE_V3_PATCH = 'gate-baseline-v3';

/** The patches the first baseline stands for; a patch added later is asked on its own (or by a next baseline). */
export const BASELINE_PATCHES = [
  'audit-batch-durable-v1',
  'search-attributes-on-change-v1',
  'requester-before-state-v1',
  'refusal-cap-v1',
  'reviewer-roles-v1',
  'creator-requested-event-v1',
  'gate-continue-as-new-v1',
  'caller-written-events-v1',
  'recheck-local-v1',
  'error-classes-v1',
] as const;

/** What the second baseline adds to the first. */
export const BASELINE_V2_PATCHES = ['recheck-in-tool-v1'] as const;

/** What the third baseline adds to the second. */
export const BASELINE_V3_PATCHES = ['caller-recorded-events-v1'] as const;

/**
 * The fourth baseline: everything of the third, and BASELINE_V4_PATCHES. New executions
 * record this marker alone; those recorded with an earlier baseline keep theirs.
 */
export const GATE_BASELINE_V4_PATCH = 'gate-baseline-v4';

/** What the fourth baseline adds to the third. */
export const BASELINE_V4_PATCHES = ['gate-lazy-deadlines-v1'] as const;

/** The baselines, newest first, each with every patch it stands for. */
const BASELINES: { id: string; covers: readonly string[] }[] = [
  {
    id: GATE_BASELINE_V4_PATCH,
    covers: [...BASELINE_PATCHES, ...BASELINE_V2_PATCHES, ...BASELINE_V3_PATCHES, ...BASELINE_V4_PATCHES],
  },
  { id: GATE_BASELINE_V3_PATCH, covers: [...BASELINE_PATCHES, ...BASELINE_V2_PATCHES, ...BASELINE_V3_PATCHES] },
  { id: GATE_BASELINE_V2_PATCH, covers: [...BASELINE_PATCHES, ...BASELINE_V2_PATCHES] },
  { id: GATE_BASELINE_PATCH, covers: BASELINE_PATCHES },
];

/** The newest baseline: what a gate's creator declares in `GateInput.patch_baseline`. */
export const CURRENT_PATCH_BASELINE = BASELINES[0]!.id;

/** Answers `patched(id)` for one execution, through the baseline where it covers `id`. */
export type Patched = (id: string) => boolean;

/**
 * Decides the baseline once, at the start of the execution (call it before any other
 * patch), and returns the `patched` to use for the rest of it.
 *
 * `declared` is the input's `patch_baseline`. When this code knows it, a new execution
 * takes it without calling `patched()`: no marker, and none of the `TemporalChangeVersion`
 * upsert (a visibility write) the SDK makes with each marker. The input is in the history,
 * so a replay finds the same baseline. A replay still asks the markers first, because a
 * worker from before `patch_baseline` ignores the field: it recorded its own baseline's
 * marker, or, from before the baselines, its patches one by one, the audit trail's first
 * (every release with patches asked that one at the start). Asked on replay, `patched()`
 * only reads the history: true for a marker there, false otherwise, and no new command.
 * A worker from before the first patch records no marker at all: it must not serve gates
 * whose creator declares a baseline (GATE_DECLARE_PATCH_BASELINE=off for the API while one
 * does; docs/upgrading.md).
 */
export function gatePatches(declared?: string): Patched {
  const known = BASELINES.find(({ id }) => id === declared);
  if (known && !workflowInfo().unsafe.isReplaying) return through(known);
  // Newest first: a history keeps the baseline it was recorded with (asking a newer one on replay answers false).
  const recorded = BASELINES.find(({ id }) => patched(id));
  if (recorded) return through(recorded);
  if (known && !FIRST_PATCHES_BEFORE_BASELINES.some((id) => patched(id))) return through(known);
  return patched;
}

/** The patches a gate asked first, at its start, in the releases before the baselines. */
const FIRST_PATCHES_BEFORE_BASELINES = [AUDIT_DURABLE_BATCH_PATCH, AUDIT_BATCH_PATCH];

/** `patched` through a baseline: true for what it covers, the patch's own marker for the rest. */
function through(baseline: { covers: readonly string[] }): Patched {
  const covered = new Set<string>(baseline.covers);
  return (id) => covered.has(id) || patched(id);
}
