import { digest } from 'approval-gate';
import { DraftRefArgs, SubmitTripInput, TripDraftContent, TripTool, formatDays, formatKrw } from './policy';
import type { Db } from 'approval-gate/worker';
import { DomainToolError } from 'approval-gate';
import type { ToolOutput } from 'approval-gate/worker';
import { runOnce } from './idempotency';
import { searchTripPolicy } from './policy-document';
import {
  contentOf,
  getDraft,
  insertDraft,
  insertSubmission,
  insertValidation,
  latestDraft,
  latestValidation,
  submissionForDraft,
} from './store';

/**
 * Runs one trip tool. Writes are idempotent by `key` (see `runOnce`). The tool's own
 * refusals are `DomainToolError`s with a message for the model, reported once as execution
 * failures (the policy already allowed the call); a store error is anything else and is
 * retried by the activity.
 */
export async function executeTripTool(
  db: Db,
  sessionId: string,
  tool: string,
  input: Record<string, unknown>,
  key: string,
): Promise<ToolOutput> {
  switch (tool) {
    case TripTool.SearchPolicy: {
      const query = typeof input.query === 'string' ? input.query : '';
      const found = searchTripPolicy(query);
      return {
        content: `Business-trip policy${found.matched ? ` (sections matching "${query}")` : ''}:\n${found.text}`,
        values: { matched_sections: found.matched },
      };
    }
    case TripTool.Draft: {
      const content = TripDraftContent.parse(input);
      return (await runOnce(db, key, { sessionId, tool, input: content }, (tx) => draft(tx, sessionId, content)))
        .output;
    }
    case TripTool.Validate: {
      const args = DraftRefArgs.parse(input);
      return (await runOnce(db, key, { sessionId, tool, input: args }, (tx) => validate(tx, sessionId, args.draft_id)))
        .output;
    }
    case TripTool.Submit:
      return submit(db, sessionId, SubmitTripInput.parse(input), key);
    default:
      throw new DomainToolError(`unknown trip tool: ${tool}`);
  }
}

async function draft(tx: Db, sessionId: string, content: TripDraftContent): Promise<ToolOutput> {
  const d = await insertDraft(tx, sessionId, content, 'model');
  return {
    content: `Draft ${d.draft_id} (version ${d.version}) saved: ${d.destination}, ${formatDays(d.days)}, budget ${formatKrw(d.budget)} KRW. Validate it with validate_trip_request before submitting.`,
    values: { draft_id: d.draft_id, draft_version: d.version, ...contentOf(d), draft_sha256: d.content_sha256 },
  };
}

async function validate(tx: Db, sessionId: string, draftId: string | undefined): Promise<ToolOutput> {
  const d = draftId === undefined ? await latestDraft(tx, sessionId) : await getDraft(tx, sessionId, draftId);
  if (!d)
    throw new DomainToolError(
      draftId === undefined
        ? 'There is no draft to validate; call draft_trip_request first.'
        : `Draft ${draftId} does not exist in this session.`,
    );
  const v = await insertValidation(tx, d);
  const content = v.ok
    ? `Draft ${d.draft_id} (version ${d.version}) passed validation (validation_sha256 ${v.validation_sha256}). It can be submitted with submit_trip_request.`
    : `Draft ${d.draft_id} (version ${d.version}) failed validation: ${v.errors.map((e) => e.message).join('; ')}. Create a corrected draft with draft_trip_request.`;
  return {
    content,
    values: {
      draft_id: d.draft_id,
      draft_version: d.version,
      ok: v.ok,
      errors: v.errors,
      validation_sha256: v.validation_sha256,
    },
  };
}

/**
 * The gated effect. The submission row and the idempotency record commit together;
 * inside that transaction the draft is re-read so the row is exactly the validated
 * draft, even if something slipped in between the gate's recheck and this call.
 */
async function submit(db: Db, sessionId: string, input: SubmitTripInput, key: string): Promise<ToolOutput> {
  if (input.session_id !== sessionId)
    throw new DomainToolError(`The submit input belongs to session ${input.session_id}, not ${sessionId}.`);
  const { output } = await runOnce(db, key, { sessionId, tool: TripTool.Submit, input }, async (tx) => {
    const d = await getDraft(tx, sessionId, input.draft_id);
    if (!d) throw new DomainToolError(`Draft ${input.draft_id} does not exist in this session.`);
    if (d.version !== input.draft_version || d.content_sha256 !== digest(contentOf(input)))
      throw new DomainToolError(
        `Draft ${input.draft_id} does not hold the values being submitted; nothing was submitted.`,
      );
    const v = await latestValidation(tx, d.draft_id);
    if (!v?.ok) throw new DomainToolError(`Draft ${d.draft_id} has no passing validation; nothing was submitted.`);
    const prior = await submissionForDraft(tx, d.draft_id);
    if (prior)
      throw new DomainToolError(
        `Draft ${d.draft_id} was already submitted as ${prior.submission_id} (request ${prior.request_id}).`,
      );
    const s = await insertSubmission(tx, sessionId, { draft_id: d.draft_id, ...contentOf(d), request_id: key });
    return {
      content: `Trip request submitted: ${s.destination}, ${formatDays(s.days)}, budget ${formatKrw(s.budget)} KRW (submission ${s.submission_id}).`,
      values: {
        submission_id: s.submission_id,
        draft_id: s.draft_id,
        destination: s.destination,
        days: s.days,
        budget: s.budget,
      },
    };
  });
  return output;
}
