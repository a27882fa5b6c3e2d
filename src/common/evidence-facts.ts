import type { AuditEvent } from './audit';
import type { ReviewerAuth } from './decision';
import { digest } from './hashing';
import { isTerminal, transition, type ApprovalStatus, type LifecycleEvent } from './lifecycle';

// What an approval's audit events say happened: who decided, how, with which quorum, and
// the outcome. One definition for the exporter (which writes it into the bundle) and the
// verifier (which recomputes it from the bundle's events and compares). Pure.

/** One reviewer's decision as its audit events record it. */
export interface EvidenceDecision {
  decision_id: string | null;
  reviewer_id: string;
  /** How the reviewer authenticated; null when the decision was recorded without it (by signal, or before it was recorded). */
  auth: ReviewerAuth | null;
  /** The reviewer's roles when deciding; null when not recorded. */
  roles: string[] | null;
  decision: 'approve' | 'modify' | 'reject';
  /** Why (a rejection's reason). */
  reason: string | null;
  /** The reviewer's note. */
  note: string | null;
  /** For modify: the digest of the args it set. */
  args_sha256: string | null;
  /** When the first event of the decision was recorded. */
  at: string;
  /** `seq` of the audit events the decision produced. */
  event_seqs: number[];
}

/** Who had to approve and who was counted (the votes since the last modification). */
export interface EvidenceQuorum {
  approvals_required: number;
  /** Roles one of which each counted reviewer needs; empty: any reviewer. */
  roles: string[];
  reviewers: string[];
  met: boolean;
}

/** The rule that decided who reviews, from the evidence payload (so under `payload_sha256`). */
export interface EvidencePolicy {
  rule: string | null;
  /** SHA-256 of the rule file; null when the server ran without one. */
  file_sha256: string | null;
  roles: string[];
  approvals_required: number;
}

/** An `approval.escalated` event. */
export interface EvidenceEscalation {
  seq: number;
  at: string;
  note: string | null;
  data: Record<string, unknown>;
}

/** Where the request ended (or stands, when pending). */
export interface EvidenceOutcome {
  status: ApprovalStatus;
  /** True while the status is not terminal (requested or approved). */
  pending: boolean;
  /** The note of the event that set the status (a denial's reason, an expiry's explanation). */
  reason: string | null;
  at: string;
  /** Actor of the event that set the status. */
  by: string;
  /** For gates that ran their tool: what the tool reported. */
  execution: { outcome: 'success' | 'failure'; at: string } | null;
}

/** Everything the bundle states beyond the payload and the events themselves. */
export interface EvidenceFacts {
  executor: string | null;
  final_args: Record<string, unknown>;
  final_args_sha256: string;
  policy: EvidencePolicy | null;
  decisions: EvidenceDecision[];
  quorum: EvidenceQuorum;
  escalations: EvidenceEscalation[];
  outcome: EvidenceOutcome;
}

/** A way the events contradict the rules, tagged with the verifier check that reports it. */
export interface FactProblem {
  check: 'args' | 'quorum' | 'self_approval' | 'outcome';
  message: string;
}

const STATUS_EVENTS: Record<string, LifecycleEvent> = {
  'approval.approved': 'approve',
  'approval.denied': 'reject',
  'approval.expired': 'expire',
  'approval.cancelled': 'cancel',
  'approval.consumed': 'consume',
  'approval.invalidated': 'invalidate',
};
const DECISION_EVENTS = new Set([
  'approval.modified',
  'approval.vote_recorded',
  'approval.approved',
  'approval.denied',
]);

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const strings = (v: unknown): string[] | null =>
  Array.isArray(v) && v.every((x) => typeof x === 'string') ? (v as string[]) : null;

/** The payload's reviewer rule, as the bundle states it. */
export function policyOf(payload: Obj): EvidencePolicy | null {
  const p = payload.reviewer_policy;
  if (!isObj(p)) return null;
  return {
    rule: str(p.rule),
    file_sha256: str(p.policy_sha256),
    roles: strings(p.roles) ?? [],
    approvals_required: typeof p.approvals_required === 'number' ? p.approvals_required : 1,
  };
}

/**
 * Replays a request's audit events (in chain order) against the lifecycle and the
 * quorum rules. Returns the facts they establish and every way they break a rule; the
 * exporter states the facts, the verifier recomputes and compares them.
 */
export function evidenceFacts(
  payload: Obj,
  events: readonly AuditEvent[],
): { facts: EvidenceFacts; problems: FactProblem[] } {
  const problems: FactProblem[] = [];
  const problem = (check: FactProblem['check'], message: string): void => void problems.push({ check, message });
  const agent = str(payload.agent_id) ?? '';
  const policy = policyOf(payload);
  const roles = policy?.roles ?? [];
  const first = events[0];
  const firstData: Obj = first && isObj(first.data) ? first.data : {};
  if (!first || first.event_type !== 'approval.requested')
    problem('outcome', 'the trail does not start with approval.requested');

  let args: Obj = isObj(payload.args) ? payload.args : {};
  let argsSha = digest(args);
  if (first && firstData.args_sha256 !== undefined && firstData.args_sha256 !== argsSha)
    problem('args', `approval.requested records args_sha256 ${String(firstData.args_sha256)}, not the payload's args`);
  let required = typeof firstData.approvals_required === 'number' ? firstData.approvals_required : 1;
  let status: ApprovalStatus = 'requested';
  let outcome: EvidenceOutcome = {
    status,
    pending: true,
    reason: null,
    at: first?.timestamp ?? '',
    by: first?.actor_id ?? agent,
    execution: null,
  };
  let votes: { reviewer: string; seq: number }[] = [];
  const decisions = new Map<string, EvidenceDecision>();
  const escalations: EvidenceEscalation[] = [];

  const decisionOf = (e: AuditEvent, data: Obj): EvidenceDecision => {
    const id = str(data.decision_id);
    const key = JSON.stringify([e.actor_id, id ?? `seq:${e.seq}`]);
    let d = decisions.get(key);
    if (!d) {
      d = {
        decision_id: id,
        reviewer_id: e.actor_id,
        auth: isObj(data.auth) ? (data.auth as ReviewerAuth) : null,
        roles: strings(data.reviewer_roles),
        decision: 'approve',
        reason: null,
        note: null,
        args_sha256: null,
        at: e.timestamp,
        event_seqs: [],
      };
      decisions.set(key, d);
    }
    d.event_seqs.push(e.seq);
    return d;
  };
  // Roles an escalation level added may decide from that level on (src/workflow/gate/escalate.ts).
  let deciding = roles;
  const eligible = (who: string, held: string[] | null, what: string, check: FactProblem['check']): void => {
    const roles = deciding;
    if (roles.length === 0) return;
    if (held === null)
      problem(
        check,
        `the roles of ${who} were not recorded (${who} ${what}), so eligibility for ${roles.join(', ')} cannot be shown`,
      );
    else if (!roles.some((r) => held.includes(r)))
      problem(
        check,
        `${who} ${what} without one of the roles ${roles.join(', ')} (held: ${held.join(', ') || 'none'})`,
      );
  };

  for (const e of events) {
    const data: Obj = isObj(e.data) ? e.data : {};
    if (e.event_type === 'approval.requested' && e !== first)
      problem('outcome', `event ${e.seq} is a second approval.requested`);
    const human = e.actor_type === 'human' && DECISION_EVENTS.has(e.event_type);
    const d = human ? decisionOf(e, data) : undefined;
    if (d && d.reviewer_id === agent)
      problem('self_approval', `${agent} requested this action and decided on it (event ${e.seq}, ${e.event_type})`);

    if (e.event_type === 'approval.modified') {
      if (status !== 'requested') problem('outcome', `event ${e.seq} modifies a request that is ${status}`);
      if (!isObj(data.args) || digest(data.args) !== data.args_sha256)
        problem('args', `approval.modified at seq ${e.seq} records args whose digest is not its args_sha256`);
      args = isObj(data.args) ? data.args : {};
      argsSha = digest(args);
      if (typeof data.approvals_required === 'number') required = data.approvals_required;
      votes = [];
      if (d) Object.assign(d, { decision: 'modify', note: e.note, args_sha256: argsSha });
    }
    if (e.event_type === 'approval.vote_recorded' || e.event_type === 'approval.approved') {
      if (e.event_type === 'approval.vote_recorded' && status !== 'requested')
        problem('outcome', `event ${e.seq} records a vote on a request that is ${status}`);
      if (d) {
        if (d.decision !== 'modify') d.note = e.note;
        if (votes.some((v) => v.reviewer === e.actor_id))
          problem(
            'quorum',
            `${e.actor_id} is counted twice toward the quorum (seq ${e.seq}); reviewers must be distinct`,
          );
        votes.push({ reviewer: e.actor_id, seq: e.seq });
        eligible(e.actor_id, strings(data.reviewer_roles), `approved at seq ${e.seq}`, 'quorum');
      }
    }
    if (e.event_type === 'approval.approved') {
      const distinct = new Set(votes.map((v) => v.reviewer)).size;
      if (distinct < required)
        problem('quorum', `approved at seq ${e.seq} with ${distinct} distinct reviewer(s) of ${required} required`);
      if (data.args_sha256 !== argsSha)
        problem('args', `approval.approved at seq ${e.seq} names other args than the ones decided`);
    }
    if (e.event_type === 'approval.denied' && d) {
      Object.assign(d, { decision: 'reject', reason: e.note, note: str(data.reviewer_note) });
      eligible(e.actor_id, strings(data.reviewer_roles), `denied at seq ${e.seq}`, 'outcome');
    }
    if (e.event_type === 'approval.consumed' && data.args_sha256 !== undefined && data.args_sha256 !== argsSha)
      problem('args', `approval.consumed at seq ${e.seq} hands out other args than the ones approved`);
    if (e.event_type === 'approval.escalated') {
      escalations.push({ seq: e.seq, at: e.timestamp, note: e.note, data });
      const added = strings(data.roles_added) ?? [];
      if (deciding.length > 0 && added.length > 0) deciding = [...new Set([...deciding, ...added])];
    }
    if (e.event_type === 'tool.succeeded' || e.event_type === 'tool.failed')
      outcome = {
        ...outcome,
        execution: { outcome: e.event_type === 'tool.succeeded' ? 'success' : 'failure', at: e.timestamp },
      };

    const move = STATUS_EVENTS[e.event_type];
    if (move) {
      const t = transition(status, move);
      if (!t.ok) problem('outcome', `event ${e.seq} (${e.event_type}) cannot follow status ${status}`);
      else {
        status = t.to;
        outcome = { ...outcome, status, pending: !isTerminal(status), reason: e.note, at: e.timestamp, by: e.actor_id };
      }
    }
  }

  const reviewers = votes.map((v) => v.reviewer);
  return {
    facts: {
      executor: str(firstData.executor),
      final_args: args,
      final_args_sha256: argsSha,
      policy,
      decisions: [...decisions.values()],
      quorum: { approvals_required: required, roles, reviewers, met: new Set(reviewers).size >= required },
      escalations,
      outcome,
    },
    problems,
  };
}
