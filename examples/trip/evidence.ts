import type { Snapshot } from 'approval-gate';
import { digest } from 'approval-gate';
import { TripTool, tripSummary, type SubmitTripInput } from './policy';
import type { CallPlan } from 'approval-gate/worker';
import { contentOf, type DraftRow, type ValidationRow } from './store';

/** The final submit input, from the stored draft only: the model's args never reach it. */
export function submitInputOf(sessionId: string, draft: DraftRow): SubmitTripInput {
  return { session_id: sessionId, draft_id: draft.draft_id, draft_version: draft.version, ...contentOf(draft) };
}

/** What an approval of `input` binds to: the tool, the args, the draft version and hash, the validation hash. */
export function submitSnapshot(input: SubmitTripInput, draft: DraftRow, validation: ValidationRow): Snapshot {
  return {
    tool: TripTool.Submit,
    args_sha256: digest(input),
    result_version: draft.version,
    result_sha256: draft.content_sha256,
    validation_sha256: validation.validation_sha256,
  };
}

type Evidence = Extract<CallPlan, { policy: 'require_approval' }>['evidence'];

/** Evidence fields for the gate of one submission. */
export function submitEvidence(input: SubmitTripInput, draft: DraftRow, validation: ValidationRow): Evidence {
  return {
    action: 'trip.submit',
    target: draft.draft_id,
    summary: tripSummary(contentOf(draft)),
    blast_radius: { budget_krw: draft.budget, days: draft.days },
    preconditions: {
      draft_id: draft.draft_id,
      draft_version: draft.version,
      validation_sha256: validation.validation_sha256,
    },
    snapshot: submitSnapshot(input, draft, validation),
  };
}
