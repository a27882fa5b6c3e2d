import { upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import type { SearchAttributeUpdatePair } from '@temporalio/common';

/**
 * An upsert that sends only the pairs whose value differs from what the workflow already
 * carries (set at start or by an earlier upsert). Every upsert is a visibility write on
 * the server; gates start with their attributes set, so most publishes write nothing.
 */
export function upsertChanged(pairs: SearchAttributeUpdatePair[]): void {
  const current = workflowInfo().typedSearchAttributes;
  const send = pairs.filter((p) => current.get(p.key) !== p.value);
  if (send.length > 0) upsertSearchAttributes(send);
}
