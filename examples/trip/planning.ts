import type { Snapshot } from 'approval-gate';
import { digest } from 'approval-gate';
import { SubmitTripInput, TripTool, permittedTripTools, tripBlockReason, tripTier } from './policy';
import type { Db } from 'approval-gate/worker';
import type { CallPlan, RecheckResult } from 'approval-gate/worker';
import { submitEvidence, submitInputOf } from './evidence';
import { contentOf, loadTripSession } from './store';
import { tripTool } from './tools';

/** Names of the tools the model may call now in this session. */
export async function tripPermittedTools(db: Db, sessionId: string): Promise<string[]> {
  return permittedTripTools((await loadTripSession(db, sessionId)).state);
}

/**
 * Policy and final input of one call. Reads and drafts run as asked; validate and
 * submit are checked against the session's state; submit's input is rebuilt from the
 * latest validated draft, whatever the model's args said.
 */
export async function planTripCall(
  db: Db,
  sessionId: string,
  tool: string,
  args: Record<string, unknown>,
): Promise<CallPlan> {
  const def = tripTool(tool);
  if (!def) return { policy: 'block', reason: `${tool} is not a tool of the trip domain.` };
  // Args passed the schema already; parsing again costs little and yields the normalised (trimmed) values.
  const parsed = def.args.safeParse(args);
  if (!parsed.success)
    return {
      policy: 'block',
      reason: `Invalid arguments for ${tool}: ${parsed.error.issues.map((i) => i.message).join('; ')}`,
    };
  if (tool === TripTool.SearchPolicy || tool === TripTool.Draft) return { policy: 'allow', input: parsed.data };

  const draftId = typeof parsed.data.draft_id === 'string' ? parsed.data.draft_id : undefined;
  const view = await loadTripSession(db, sessionId);
  const reason = tripBlockReason(view.state, tool, draftId);
  if (reason) return { policy: 'block', reason };
  if (tool === TripTool.Validate) {
    const target = draftId ?? view.draft?.draft_id;
    return { policy: 'allow', input: target === undefined ? {} : { draft_id: target } };
  }
  // tripBlockReason returned null for submit: the latest draft exists and passed validation.
  const { draft, validation } = view;
  if (!draft || !validation?.ok) throw new Error('trip policy allowed a submit without a validated draft (bug)');
  const input = submitInputOf(sessionId, draft);
  const tier = tripTier(draft.budget);
  // Evidence on the allowed tier too: a rule of GATE_POLICY_FILE may still ask a person.
  if (tier.policy === 'allow') return { policy: 'allow', input, evidence: submitEvidence(input, draft, validation) };
  return {
    policy: 'require_approval',
    input,
    approvals_required: tier.approvals_required,
    evidence: submitEvidence(input, draft, validation),
  };
}

/**
 * The store half of "executable only when": the latest draft is still the approved
 * version with the approved content, its latest validation is the approved one and
 * passed, and the draft was never submitted. Every difference is named; a mismatch is
 * a policy block (`invalidated`), never an execution failure.
 */
export async function recheckTripCall(
  db: Db,
  sessionId: string,
  tool: string,
  input: Record<string, unknown>,
  snapshot: Snapshot,
): Promise<RecheckResult> {
  const m: string[] = [];
  if (tool !== TripTool.Submit) m.push(`tool: only ${TripTool.Submit} is gated in the trip domain, not ${tool}`);
  const parsed = SubmitTripInput.safeParse(input);
  if (!parsed.success) m.push('input: not a submit_trip_request input assembled by the trip adapter');
  else if (parsed.data.session_id !== sessionId)
    m.push(`session_id: input belongs to ${parsed.data.session_id}, not ${sessionId}`);
  if (m.length > 0 || !parsed.success) return blocked(m);

  const { draft, validation, submission } = await loadTripSession(db, sessionId);
  const approvedId = parsed.data.draft_id;
  if (!draft) return blocked([`draft: session ${sessionId} has no draft any more`]);
  if (draft.draft_id !== approvedId) m.push(`draft_id: approved ${approvedId}, latest is ${draft.draft_id}`);
  if (draft.version !== snapshot.result_version)
    m.push(`result_version: approved draft version ${snapshot.result_version}, latest is ${draft.version}`);
  if (draft.content_sha256 !== snapshot.result_sha256)
    m.push(`result_sha256: approved ${short(snapshot.result_sha256)}, latest draft is ${short(draft.content_sha256)}`);
  if (digest(contentOf(parsed.data)) !== draft.content_sha256)
    m.push('input: destination, days or budget differ from the latest draft');
  if (!validation) m.push(`validation_sha256: the latest draft (version ${draft.version}) has no validation`);
  else if (validation.validation_sha256 !== snapshot.validation_sha256)
    m.push(
      `validation_sha256: approved ${short(snapshot.validation_sha256)}, latest validation is ${short(validation.validation_sha256)}`,
    );
  else if (!validation.ok) m.push('validation: the latest validation failed');
  if (submission)
    m.push(
      `idempotency: draft ${submission.draft_id} was already submitted as ${submission.submission_id} (request ${submission.request_id})`,
    );
  return m.length === 0 ? { ok: true } : blocked(m);
}

function blocked(mismatches: string[]): RecheckResult {
  return {
    ok: false,
    mismatches,
    reason: `The approved trip request no longer matches the trip store: ${mismatches.join('; ')}. It was not submitted; a new approval is needed.`,
  };
}

function short(sha: string): string {
  return `${sha.slice(0, 12)}…`;
}
