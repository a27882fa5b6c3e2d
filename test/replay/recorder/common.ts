import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Client, WorkflowHandle } from '@temporalio/client';
import type { DecisionMessage } from '../../../src/common/decision';
import { decideSignal, decideUpdate, getAuditQuery, getGateQuery } from '../../../src/workflow/gate/messages';
import { encodeHistory, historyFileName, patchIdsOf, type History } from '../history-codec';

/** Workflow type names are frozen: they are in every recorded history and file name. */
export const GATE_TYPE = 'approvalGateWorkflow';
export const RUN_TYPE = 'agentRunWorkflow';

/** Writes one history as `<path>[.<execution>].<type>.json` into `dir`. */
export function save(dir: string, pathName: string, history: History, status: string, execution?: number): void {
  const type = history.events?.[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name;
  if (!type) throw new Error(`${pathName}: the history has no start event`);
  const file = historyFileName(pathName, type, execution);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, file), encodeHistory(history));
  console.log(`${path.basename(dir)}/${file}: ${status}, ${history.events?.length ?? 0} events`);
}

/**
 * Every execution of a workflow, oldest first, found from the latest through the previous
 * run id its start event names (no visibility query, so nothing is missed while it lags).
 */
export async function executionHistories(client: Client, workflowId: string): Promise<History[]> {
  const out: History[] = [];
  let runId: string | undefined;
  for (;;) {
    const h = await client.workflow.getHandle(workflowId, runId).fetchHistory();
    out.unshift(h);
    const previous = h.events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId;
    if (!previous) return out;
    runId = previous;
  }
}

/**
 * Refuses unless the workflow's histories hold a marker of each patch in `patches`: a path
 * recorded for a patch that did not take the patched branch would check nothing.
 */
export async function expectPatches(client: Client, pathName: string, workflowId: string, patches: string[]) {
  const found = new Set((await executionHistories(client, workflowId)).flatMap((h) => patchIdsOf(h.events ?? [])));
  const missing = patches.filter((p) => !found.has(p));
  if (missing.length > 0)
    throw new Error(
      `${pathName}: ${workflowId} recorded no marker of ${missing.join(', ')} (found ${[...found].join(', ') || 'none'})`,
    );
}

/** Saves a workflow's histories: one file, or one per execution when it continued as new. */
export async function saveExecutions(
  client: Client,
  dir: string,
  pathName: string,
  workflowId: string,
  status: string,
): Promise<number> {
  const all = await executionHistories(client, workflowId);
  all.forEach((h, i) =>
    save(dir, pathName, h, i === all.length - 1 ? status : 'continued as new', all.length > 1 ? i + 1 : undefined),
  );
  return all.length;
}

/** A vote from a reviewer with roles, bound to the gate's payload and args. */
export function roleVote(sha: string, argsSha: string, reviewer: string, roles: string[]): DecisionMessage {
  return {
    decision_id: `dec_${randomUUID()}`,
    reviewer_id: reviewer,
    reviewer_roles: roles,
    decision: 'approve',
    payload_sha256: sha,
    args_sha256: argsSha,
  };
}

/** Refuses unless the gate audited the ineligible vote (a recording that went elsewhere is refused). */
export async function expectIneligibleAudited(handle: WorkflowHandle, reviewer: string): Promise<void> {
  const events = await handle.query(getAuditQuery);
  const refused = events.find((e) => e.event_type === 'decision.refused' && e.actor_id === reviewer);
  if ((refused?.data as { refusal?: string } | undefined)?.refusal !== 'IneligibleReviewer')
    throw new Error(`${handle.workflowId}: the vote of ${reviewer} was not refused as IneligibleReviewer`);
}

/** An ineligible vote by signal (refused and audited), then two finance approvals by update. */
export async function voteAsFinance(gate: WorkflowHandle, ineligible: string): Promise<void> {
  const state = await gate.query(getGateQuery);
  if (state.payload.reviewer_policy?.roles[0] !== 'finance')
    throw new Error(`${gate.workflowId}: the gate's evidence names no finance rule`);
  const vote = (reviewer: string, roles: string[]) =>
    roleVote(state.payload_sha256, state.final_args_sha256, reviewer, roles);
  await gate.signal(decideSignal, vote(ineligible, ['support']));
  await gate.executeUpdate(decideUpdate, { args: [vote('rev-fin-1', ['finance'])] });
  await gate.executeUpdate(decideUpdate, { args: [vote('rev-fin-2', ['finance'])] });
  await expectIneligibleAudited(gate, ineligible);
}

/** Polls until the workflow has run its first task (its query answers). */
export async function waitUntilRunning(gate: WorkflowHandle): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (
      await gate.query(getGateQuery).then(
        () => true,
        () => false,
      )
    )
      return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`gate ${gate.workflowId} never started`);
}
