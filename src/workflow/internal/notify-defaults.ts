import { patched } from '@temporalio/workflow';
import { levelZeroTargets } from '../../common/escalation';

/**
 * Level-0 targets of a gate a workflow opens: the request's `notify`, else its rule's, else
 * the worker's GATE_NOTIFY (`defaults`), the last only behind `patchId`, asked only when
 * the defaults are what tells (0.2.0 gates of workflows and runs told nobody then).
 * Workflow code.
 */
export function toldAtCreation(
  requested: readonly string[] | undefined,
  rule: readonly string[] | undefined,
  defaults: readonly string[] | undefined,
  patchId: string,
): string[] {
  const usesDefaults = requested === undefined && rule === undefined && !!defaults?.length;
  return levelZeroTargets(requested, rule, usesDefaults && patched(patchId) ? defaults : []);
}
