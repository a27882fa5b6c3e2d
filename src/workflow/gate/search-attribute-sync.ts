import { patched, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import type { SearchAttributeUpdatePair } from '@temporalio/common';
import type { Patched } from './patch-baseline';

/**
 * Patch id of change-only upserts. Histories recorded before it upserted every search
 * attribute on every publish (values the start had already set among them), and keep
 * doing so on replay.
 */
export const SEARCH_ATTRIBUTES_PATCH = 'search-attributes-on-change-v1';

/**
 * An upsert that sends only the pairs whose value differs from what the workflow already
 * carries (set at start or by an earlier upsert). Every upsert is a visibility write on
 * the server; gates start with their attributes set, so most publishes write nothing.
 * Decides its patch once, when created: call it at the start of the workflow.
 */
export function searchAttributeSync(isPatched: Patched = patched): (pairs: SearchAttributeUpdatePair[]) => void {
  const changesOnly = isPatched(SEARCH_ATTRIBUTES_PATCH);
  return (pairs) => {
    const current = workflowInfo().typedSearchAttributes;
    const send = changesOnly ? pairs.filter((p) => current.get(p.key) !== p.value) : pairs;
    if (send.length > 0) upsertSearchAttributes(send);
  };
}
