import { z } from 'zod';

/**
 * Pure rules of the example "business trips" domain (docs/agent-runs.md): schemas,
 * validation, policy tiers and which tool is permitted in which state. No I/O, so
 * the adapter, the API and tests share one definition.
 */

/** Tool names of the trip domain, as the model sees them. */
export const TripTool = {
  SearchPolicy: 'search_trip_policy',
  Draft: 'draft_trip_request',
  Validate: 'validate_trip_request',
  Submit: 'submit_trip_request',
} as const;
export type TripTool = (typeof TripTool)[keyof typeof TripTool];

/** Limits of the trip policy; amounts are integer KRW. */
export const TRIP_LIMITS = {
  minDays: 1,
  maxDays: 30,
  perDayBudgetKrw: 1_000_000,
  /** Budgets strictly below this need no person. */
  noApprovalBelowKrw: 300_000,
  /** Budgets up to and including this need one approver; above, two. */
  oneApproverUpToKrw: 2_000_000,
} as const;

/** Bumped when a rule changes, so a validation made under old rules hashes differently. */
export const TRIP_POLICY_VERSION = 'trip-policy/1';

/**
 * Draft content. Deliberately looser than the policy (0..365 days, any non-negative
 * budget up to 10^12): out-of-policy values must reach `validateTripDraft`, so a failed
 * validation is recorded and the model is told why; only absurd values are schema errors.
 */
export const TripDraftContent = z
  .object({
    /** City or place of the trip. */
    destination: z.string().trim().min(1).max(80).describe('Destination city, e.g. "Busan"'),
    /** Length of the trip in days (policy: 1 to 30). */
    days: z.int().min(0).max(365).describe('Number of days, 1 to 30'),
    /** Total budget in integer KRW (policy: at most 1,000,000 a day). */
    budget: z.int().min(0).max(1_000_000_000_000).describe('Total budget in KRW, an integer'),
  })
  .strict();
export type TripDraftContent = z.infer<typeof TripDraftContent>;

/** A reviewer's modification: any subset of the draft fields, nothing else. */
export const TripRevisionPatch = TripDraftContent.partial().strict();
export type TripRevisionPatch = z.infer<typeof TripRevisionPatch>;

/** Args naming an optional draft; the latest draft when absent. */
export const DraftRefArgs = z
  .object({ draft_id: z.string().min(1).max(100).optional().describe('Draft id; the latest draft when omitted') })
  .strict();

/** Final input of `submit_trip_request`, assembled by the adapter from the store, never by the model. */
export const SubmitTripInput = z
  .object({
    session_id: z.string().min(1),
    draft_id: z.string().min(1),
    draft_version: z.int().positive(),
    destination: z.string().min(1),
    days: z.int(),
    budget: z.int(),
  })
  .strict();
export type SubmitTripInput = z.infer<typeof SubmitTripInput>;

/** One problem, addressed by field path, in words a model or reviewer can act on. */
export interface TripIssue {
  path: string;
  message: string;
}

/** Domain validation of a draft: days within 1..30, budget positive and at most 1,000,000 KRW a day. */
export function validateTripDraft(c: TripDraftContent): { ok: boolean; errors: TripIssue[] } {
  const errors: TripIssue[] = [];
  const { minDays, maxDays, perDayBudgetKrw } = TRIP_LIMITS;
  if (c.days < minDays || c.days > maxDays)
    errors.push({ path: 'days', message: `days must be between ${minDays} and ${maxDays} (got ${c.days})` });
  if (c.budget < 1)
    errors.push({ path: 'budget', message: `budget must be a positive amount of KRW (got ${c.budget})` });
  else if (c.days >= 1 && c.budget > c.days * perDayBudgetKrw)
    errors.push({
      path: 'budget',
      message: `budget ${formatKrw(c.budget)} KRW is over ${formatKrw(perDayBudgetKrw)} KRW a day for ${c.days} day(s) (limit ${formatKrw(c.days * perDayBudgetKrw)} KRW)`,
    });
  return { ok: errors.length === 0, errors };
}

/** Who must look at a submission of this budget. */
export type TripTier = { policy: 'allow' } | { policy: 'require_approval'; approvals_required: 1 | 2 };

/** Policy tier by budget: under 300,000 none; up to 2,000,000 one approver; above, two distinct approvers. */
export function tripTier(budget: number): TripTier {
  if (budget < TRIP_LIMITS.noApprovalBelowKrw) return { policy: 'allow' };
  return { policy: 'require_approval', approvals_required: budget <= TRIP_LIMITS.oneApproverUpToKrw ? 1 : 2 };
}

/** What the policy needs to know about a domain session. */
export interface TripSessionState {
  latestDraft?: { draft_id: string; version: number };
  /** The most recent validation of the latest draft, if any. */
  latestValidation?: { ok: boolean; errors: TripIssue[] };
  /** Set when the latest draft was already submitted. */
  submissionId?: string;
}

/** Why a tool may not run now, or null when it may. `draftId` is the model's optional `draft_id` arg. */
export function tripBlockReason(s: TripSessionState, tool: string, draftId?: string): string | null {
  if (tool === TripTool.SearchPolicy || tool === TripTool.Draft) return null;
  if (tool !== TripTool.Validate && tool !== TripTool.Submit) return `${tool} is not a tool of the trip domain.`;
  const d = s.latestDraft;
  if (d && draftId !== undefined && draftId !== d.draft_id)
    return `draft_id ${draftId} is not the latest draft of this session; the latest is ${d.draft_id} (version ${d.version}). Omit draft_id to use the latest draft.`;
  // Without any draft, validate is allowed through and fails as a tool error ("no draft").
  if (!d)
    return tool === TripTool.Submit
      ? 'There is no draft to submit. Call draft_trip_request, then validate_trip_request.'
      : null;
  const v = s.latestValidation;
  if (v && !v.ok)
    return `Draft ${d.draft_id} (version ${d.version}) failed validation: ${v.errors.map((e) => e.message).join('; ')}. Only draft_trip_request is permitted now: create a corrected draft.`;
  if (tool === TripTool.Validate) return null;
  if (!v)
    return `Draft ${d.draft_id} (version ${d.version}) has not been validated. Call validate_trip_request before submitting.`;
  if (s.submissionId)
    return `Draft ${d.draft_id} (version ${d.version}) was already submitted as ${s.submissionId}. Create a new draft to submit another request.`;
  return null;
}

/** Tool names the model may call now. `search_trip_policy` is always among them (read-only). */
export function permittedTripTools(s: TripSessionState): string[] {
  return Object.values(TripTool).filter((t) => tripBlockReason(s, t) === null);
}

/** 800000 -> "800,000". Locale-free so every process renders the same text. */
export function formatKrw(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** 1 -> "1 day", 2 -> "2 days". */
export function formatDays(n: number): string {
  return `${n} day${n === 1 ? '' : 's'}`;
}

/** One line for the reviewer, at most 120 characters. */
export function tripSummary(c: TripDraftContent): string {
  const tail = `, ${formatDays(c.days)}, budget ${formatKrw(c.budget)} KRW`;
  const room = 120 - 'Business trip to '.length - tail.length;
  const dest = c.destination.length > room ? `${c.destination.slice(0, Math.max(room - 1, 1))}…` : c.destination;
  return `Business trip to ${dest}${tail}`.slice(0, 120);
}

/** zod issues -> `{ path, message }`, one per unknown key so a reviewer sees which field is wrong. */
export function issuesOf(error: z.ZodError): TripIssue[] {
  return error.issues.flatMap((i) =>
    i.code === 'unrecognized_keys'
      ? i.keys.map((k) => ({ path: [...i.path, k].join('.'), message: `unknown field "${k}"` }))
      : [{ path: i.path.map(String).join('.'), message: i.message }],
  );
}
