import { digest } from 'approval-gate';
import {
  SubmitTripInput,
  TripDraftContent,
  TripRevisionPatch,
  TripTool,
  issuesOf,
  tripSummary,
  tripTier,
  validateTripDraft,
  type TripIssue,
} from './policy';
import type { Db } from 'approval-gate/worker';
import type { RevisionResult } from 'approval-gate/worker';
import { submitInputOf, submitSnapshot } from './evidence';
import {
  contentOf,
  getDraft,
  insertDraft,
  insertValidation,
  latestDraft,
  latestValidation,
  submissionForDraft,
  type DraftRow,
} from './store';

function refused(issues: TripIssue[]): RevisionResult {
  return { ok: false, issues };
}

/**
 * A reviewer's modification of a pending submission (`{ budget: 500000 }`). The patch
 * goes through the same schema and domain validation as a model's draft; a valid one
 * is written as a new draft version with a passing validation, so the store holds
 * exactly what will be submitted and the new snapshot binds to it.
 *
 * Retry-safe: when the activity is retried after its commit, the revision it already
 * wrote is found (same parent, same content) and returned instead of writing another.
 */
export async function reviseTripCall(
  db: Db,
  sessionId: string,
  tool: string,
  input: Record<string, unknown>,
  patch: Record<string, unknown>,
): Promise<RevisionResult> {
  if (tool !== TripTool.Submit)
    return refused([{ path: '', message: `${tool} takes no reviewer modifications; only ${TripTool.Submit} does` }]);
  const current = SubmitTripInput.safeParse(input);
  if (!current.success)
    return refused([
      { path: 'input', message: 'the pending input is not a submit_trip_request input assembled by the trip adapter' },
    ]);
  if (current.data.session_id !== sessionId)
    return refused([
      { path: 'session_id', message: `the pending input belongs to session ${current.data.session_id}` },
    ]);
  const p = TripRevisionPatch.safeParse(patch);
  if (!p.success) return refused(issuesOf(p.error));
  if (Object.keys(p.data).length === 0)
    return refused([{ path: '', message: 'the modification changes nothing; give destination, days or budget' }]);

  return db.transaction(async (tx) => {
    const base = await getDraft(tx, sessionId, current.data.draft_id);
    if (!base)
      return refused([
        { path: 'draft_id', message: `draft ${current.data.draft_id} does not exist in session ${sessionId}` },
      ]);
    const merged = TripDraftContent.safeParse({ ...contentOf(base), ...p.data });
    if (!merged.success) return refused(issuesOf(merged.error));
    const check = validateTripDraft(merged.data);
    if (!check.ok) return refused(check.errors);

    const latest = (await latestDraft(tx, sessionId))!;
    let draft: DraftRow;
    if (
      latest.source === 'review' &&
      latest.parent_draft_id === base.draft_id &&
      latest.content_sha256 === digest(merged.data)
    ) {
      draft = latest; // a retry of this very revision
    } else if (latest.draft_id !== base.draft_id) {
      return refused([
        {
          path: 'draft_id',
          message: `the draft changed since this request was made (latest is version ${latest.version}); the request is stale`,
        },
      ]);
    } else {
      const submitted = await submissionForDraft(tx, base.draft_id);
      if (submitted)
        return refused([
          { path: 'draft_id', message: `draft ${base.draft_id} was already submitted as ${submitted.submission_id}` },
        ]);
      draft = await insertDraft(tx, sessionId, merged.data, 'review', base.draft_id);
    }
    const prior = await latestValidation(tx, draft.draft_id);
    const validation = prior?.ok ? prior : await insertValidation(tx, draft);
    const newInput = submitInputOf(sessionId, draft);
    const tier = tripTier(draft.budget);
    return {
      ok: true,
      input: newInput,
      snapshot: submitSnapshot(newInput, draft, validation),
      // A reviewer already looked at it, so even a budget now under the no-approval line keeps one approval.
      approvals_required: tier.policy === 'allow' ? 1 : tier.approvals_required,
      executed_values: contentOf(draft),
      call_args: { draft_id: draft.draft_id },
      summary: tripSummary(contentOf(draft)),
    } satisfies RevisionResult;
  });
}
