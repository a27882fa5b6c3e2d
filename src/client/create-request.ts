import {
  checkPayload,
  CreateApprovalBody,
  defaultIdempotencyKey,
  EvidencePayload,
  payloadSha256,
  requestIdFor,
} from '../common/evidence';
import type { GateInput } from '../common/gate-state';
import { digest } from '../common/hashing';
import { unrepresentableNumbers } from '../common/json-limits';
import { DEFAULT_TENANT } from '../common/tenant';
import type { ReviewerPolicy } from '../policy/reviewer-policy';
import { judge, type Judgement, type PolicyRequest } from '../policy/judge';
import { GateError, invalidInput } from './gate-error';
import {
  allTargets,
  evidenceChain,
  INLINE_CHAIN,
  levelsPastExpiry,
  levelZeroTargets,
  rolesOutsideRule,
  type GateChain,
} from '../common/escalation';
import { missingChannelSetting } from '../common/notice';

/** Time to live when a create body names neither `ttl_seconds` nor `expires_at`. */
export const DEFAULT_TTL_SECONDS = 3600;

/** Who asks, as the API authenticated it. */
export interface CreateCaller {
  /** The caller's agent key id; the body's agent_id must equal it (filled when absent). */
  agentId: string;
  /** The `Idempotency-Key` header; default hash(trigger_event_id + action + target). */
  idempotencyKey?: string;
  /** The caller's tenant; the default tenant when absent. */
  tenant?: string;
}

/** What the server adds to every create. */
export interface CreateContext {
  /** The server's rule file (GATE_POLICY_FILE); none: only the request's own roles and approvals apply. */
  policy?: ReviewerPolicy;
  /** The clock, for tests. */
  nowMs?: number;
  /**
   * The notification settings (GATE_PUBLIC_URL, GATE_SLACK_*, GATE_SMTP_URL, GATE_EMAIL_FROM,
   * GATE_TEAMS_WEBHOOKS, GATE_NOTIFY) the workers deliver with: a target they cannot reach
   * is refused (422), and GATE_NOTIFY names who is told when neither request nor rule does.
   * None: targets are not checked here, and nobody is told by default.
   */
  notify?: { settings: Record<string, string | undefined>; defaults: string[] };
}

/** A validated create: the workflow input plus the digest that tells a replay from a reuse. */
export interface PreparedCreate {
  requestId: string;
  idempotencyKey: string;
  input: GateInput;
  /** What the rule file made of the request (allow and block are already in `input.policy_decision`). */
  judgement: Judgement;
  /** The request as the rule file's conditions saw it (for grants and the `policy.evaluated` record). */
  policyRequest: PolicyRequest;
  tenant: string;
}

/**
 * Validates a create body and builds the gate's input. Nothing is stored here, so a
 * refusal leaves no trace. Throws GateError: 422 schema or secrets (with the paths),
 * 413 over 64 KB of canonical JSON, 403 when body.agent_id is not the caller.
 */
export function prepareCreate(body: unknown, caller: CreateCaller, ctx: CreateContext = {}): PreparedCreate {
  refuseUnrepresentable(body);
  const nowMs = ctx.nowMs ?? Date.now();
  const parsed = CreateApprovalBody.safeParse(body);
  if (!parsed.success) throw invalidInput('approval request', parsed.error);
  const b = parsed.data;
  if (b.agent_id !== undefined && b.agent_id !== caller.agentId) {
    throw new GateError(
      403,
      'agent_mismatch',
      `agent_id "${b.agent_id}" is not the caller; this key belongs to "${caller.agentId}"`,
      { path: '$.agent_id' },
    );
  }
  if (b.executor !== 'external') {
    // A tool gate needs a domain session to run in (an agent run gives it one); a workflow gate, a parent workflow.
    throw new GateError(
      422,
      'invalid_request',
      `executor "${b.executor}" is only for gates started by an agent run or a workflow; use "external"`,
      [{ path: '$.executor', message: 'not available here' }],
    );
  }
  // Outside the default tenant the tenant is part of the id, so tenants never share one.
  const tenant = caller.tenant ?? DEFAULT_TENANT;
  const policyRequest: PolicyRequest = {
    action: b.action,
    target: b.target,
    summary: b.summary,
    args: b.args,
    blast_radius: b.blast_radius,
    preconditions: b.preconditions,
    agent: caller.agentId,
    tenant,
    approvals_required: b.approvals_required,
    ...(b.reviewer_roles ? { reviewer_roles: b.reviewer_roles } : {}),
  };
  const judgement = judge(ctx.policy, policyRequest);
  const reviewers = judgement.review;
  if ('problem' in reviewers)
    throw new GateError(422, 'invalid_request', reviewers.problem, [
      { path: '$.reviewer_roles', message: 'not allowed' },
    ]);
  // The rule's ttl is an upper bound: a request may ask for less, never more.
  const expiresAt = capped(deadline(b, nowMs), nowMs, judgement.ttl_seconds);
  const requirement = reviewers.reviewer_policy;
  const told =
    judgement.effect === 'require'
      ? reachesReviewers(b, judgement, ctx, policyRequest, (Date.parse(expiresAt) - nowMs) / 1000)
      : {};
  const idempotencyKey = checkKey(caller.idempotencyKey) ?? defaultIdempotencyKey(b);
  const requestId = requestIdFor(
    tenant === DEFAULT_TENANT ? caller.agentId : `${tenant}/${caller.agentId}`,
    idempotencyKey,
  );
  const payload = EvidencePayload.parse({
    request_id: requestId,
    correlation_id: b.correlation_id,
    agent_id: caller.agentId,
    trigger_event_id: b.trigger_event_id,
    action: b.action,
    target: b.target,
    summary: b.summary,
    blast_radius: b.blast_radius,
    args: b.args,
    preconditions: b.preconditions,
    ...(b.snapshot ? { snapshot: b.snapshot } : {}),
    ...(b.interaction ? { interaction: b.interaction } : {}),
    idempotency_key: idempotencyKey,
    expires_at: expiresAt,
    ...(requirement ? { reviewer_policy: requirement } : {}),
    ...(judgement.evidence ? { policy: judgement.evidence } : {}),
    ...told,
  });
  const problem = checkPayload(payload);
  if (problem?.code === 'payload_too_large') throw new GateError(413, problem.code, problem.message);
  if (problem) {
    throw new GateError(
      422,
      problem.code,
      problem.message,
      (problem.paths ?? []).map((path) => ({ path, message: 'looks like a credential or card number' })),
    );
  }
  return {
    requestId,
    idempotencyKey,
    input: {
      payload,
      payload_sha256: payloadSha256(payload),
      approvals_required: reviewers.approvals_required,
      executor: b.executor,
      consume_ttl_seconds: b.consume_ttl_seconds,
      ...(b.escalate_before_seconds ? { escalate_before_seconds: b.escalate_before_seconds } : {}),
      // What the caller asked for, without what the server fills (ids, hashes, a ttl-derived
      // deadline): a retry of the same body has the same digest even a minute later.
      create_sha256: digest({ ...b, agent_id: caller.agentId }),
      ...(judgement.effect !== 'require'
        ? {
            policy_decision: {
              decision: judgement.effect === 'allow' ? ('approve' as const) : ('reject' as const),
              decided_by: judgement.decided_by,
              rule_id: judgement.rule_id,
              ...(judgement.reason ? { reason: judgement.reason } : {}),
            },
          }
        : {}),
      ...(judgement.shadow.length > 0 ? { policy_shadow: judgement.shadow } : {}),
    },
    judgement,
    policyRequest,
    tenant,
  };
}

/**
 * The chain and the targets told at creation that go into the evidence: the request's own
 * chain, else its rule's; the request's own targets, else its rule's, else GATE_NOTIFY.
 * Throws 422 for a level of the request's chain at or after its expiry, for roles a chain
 * would add beyond its rule's, and for a target the workers have no channel for.
 */
function reachesReviewers(
  b: CreateApprovalBody,
  judgement: Judgement,
  ctx: CreateContext,
  request: PolicyRequest,
  ttlSeconds: number,
): { escalation?: GateChain; notify?: string[] } {
  const chain = b.escalation ? evidenceChain(INLINE_CHAIN, b.escalation) : judgement.evidence?.escalation;
  if (b.escalation) {
    const late = levelsPastExpiry(chain!, Math.floor(ttlSeconds), '$.escalation');
    if (late.length > 0) throw new GateError(422, 'invalid_request', late.map((l) => l.message).join('; '), late);
    const outside = rolesOutsideRule(chain!, ruleRoles(judgement, ctx, request));
    if (outside.length > 0)
      throw new GateError(
        422,
        'invalid_request',
        `escalation would add the roles ${outside.join(', ')}, which the rule for ${b.action} does not allow to decide; a request may only narrow who decides`,
        [{ path: '$.escalation', message: 'roles not allowed' }],
      );
  }
  const level0 = levelZeroTargets(b.notify, judgement.evidence?.notify, ctx.notify?.defaults ?? []);
  if (ctx.notify) {
    const settings = ctx.notify.settings;
    const missing = allTargets(level0, chain).flatMap((t) => {
      const m = missingChannelSetting(t, settings);
      return m ? [{ path: targetPath(b, t), message: m }] : [];
    });
    if (missing.length > 0)
      throw new GateError(
        422,
        'notification_not_configured',
        `no channel can reach ${missing.map((m) => m.message).join('; ')}`,
        missing,
      );
  }
  return { ...(chain ? { escalation: chain } : {}), ...(level0.length > 0 ? { notify: level0 } : {}) };
}

/** The roles the request's rule lets decide before the request narrows them; none: anyone. */
function ruleRoles(judgement: Judgement, ctx: CreateContext, request: PolicyRequest): string[] {
  if (!ctx.policy) return [];
  const { reviewer_roles: narrowed, ...unnarrowed } = request;
  const review = narrowed ? judge(ctx.policy, unnarrowed).review : judgement.review;
  return 'problem' in review ? [] : (review.reviewer_policy?.roles ?? []);
}

/** Where in the body a target came from, for the 422's details. */
function targetPath(b: CreateApprovalBody, target: string): string {
  if (b.notify?.includes(target)) return '$.notify';
  const level = b.escalation?.levels.findIndex((l) => l.notify?.includes(target)) ?? -1;
  if (level >= 0) return `$.escalation.levels[${level}].notify`;
  return b.notify === undefined ? 'policy or GATE_NOTIFY' : '$.notify';
}

/** The deadline, no later than `ttlSeconds` from now when the rule sets one. */
function capped(expiresAt: string, nowMs: number, ttlSeconds: number | undefined): string {
  if (ttlSeconds === undefined) return expiresAt;
  const cap = nowMs + ttlSeconds * 1000;
  return Date.parse(expiresAt) > cap ? new Date(cap).toISOString() : expiresAt;
}

function deadline(b: CreateApprovalBody, nowMs: number): string {
  if (b.ttl_seconds !== undefined && b.expires_at !== undefined) {
    throw new GateError(422, 'invalid_request', 'give ttl_seconds or expires_at, not both', [
      { path: '$.expires_at', message: 'conflicts with ttl_seconds' },
    ]);
  }
  if (b.expires_at === undefined) return new Date(nowMs + (b.ttl_seconds ?? DEFAULT_TTL_SECONDS) * 1000).toISOString();
  const at = Date.parse(b.expires_at);
  if (!(at > nowMs))
    throw new GateError(422, 'invalid_request', `expires_at ${b.expires_at} is not in the future`, [
      { path: '$.expires_at', message: 'must be in the future' },
    ]);
  return new Date(at).toISOString();
}

function checkKey(key: string | undefined): string | undefined {
  if (key === undefined) return undefined;
  if (key.length < 1 || key.length > 256 || !/^[\x21-\x7e]+$/.test(key)) {
    throw new GateError(
      422,
      'invalid_request',
      'Idempotency-Key must be 1 to 256 printable ASCII characters without spaces',
      [{ path: 'header:Idempotency-Key', message: 'invalid' }],
    );
  }
  return key;
}

/** Library and MCP callers get the same 422 as HTTP for numbers that would not run as sent (`1e400`). */
export function refuseUnrepresentable(value: unknown): void {
  const bad = unrepresentableNumbers(value);
  if (bad.length > 0)
    throw new GateError(
      422,
      'unrepresentable_number',
      `numbers that cannot be taken as sent at ${bad.map((b) => b.path).join(', ')}`,
      bad,
    );
}
