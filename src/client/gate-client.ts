import { randomUUID } from 'node:crypto';
import {
  Client,
  WorkflowExecutionAlreadyStartedError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  type WorkflowExecutionDescription,
} from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { tsToDate } from '@temporalio/common/lib/time';
import { temporal } from '@temporalio/proto';
import { verifyChain, type AuditEvent } from '../common/audit';
import { storeCheck, type AuditView } from './audit-view';

export type { AuditView } from './audit-view';
import { DecisionMessage, type AcceptedDecision, type DecisionOutcome, type DecisionResult } from '../common/decision';
import { decisionKey } from '../common/gate-state';
import { isFailureType } from '../common/failure-types';
import type { ApprovalStatus } from '../common/lifecycle';
import type { GateState } from '../common/gate-state';
import type { AuditStore } from '../store/audit-store';
import type { approvalGateWorkflow } from '../workflow/gate/approval-gate';
import {
  CALLER_WRITES,
  CALLER_WRITES_RECORDED,
  cancelUpdate,
  consumeUpdate,
  decideSignal,
  decideUpdate,
  getAuditQuery,
  getGateQuery,
  recordRefusalSignal,
  type CallerEvents,
  type CallerWrites,
  type ConsumeResult,
} from '../workflow/gate/messages';
import { DEFAULT_TENANT, visibleTo, type Scope } from '../common/tenant';
import { prepareCreate, refuseUnrepresentable, type CreateCaller, type CreateContext } from './create-request';
import type { ReviewerPolicy } from '../policy/reviewer-policy';
import type { GrantStore } from '../store/grant-store';
import { recordEvaluation } from '../store/policy-events';
import { applyStandingGrant, issueGrant } from './grants';
import { grantConditionProblem } from '../policy/grants';
import { GateError, invalidInput } from './gate-error';
import {
  GATE_WORKFLOW_TYPE,
  gateOwnership,
  memoOf,
  quote,
  statusOf,
  summaryOf,
  visibilityFilter,
  type GateSummary,
  type CreatedRequest,
  type GateView,
  type ListFilter,
} from './gate-views';
import { requestedEvent } from '../common/requested-event';
import { startOptions } from './start-options';
import { CallerAudit, recoverAuditIntents, type IntentRecovery, type RecoverOptions } from './audit-intents';
import { readQueued } from './queued-view';
import { explain, isTransientRejection, isUnanswered, notFound, type Existence } from './temporal-errors';

export interface GateClientOptions {
  /** Task queue the gate workers poll. */
  taskQueue: string;
  /** Temporal namespace; the client's own when absent. */
  namespace?: string;
  /**
   * The audit store the gate's workers write (`openAuditStore`): read when no worker can
   * answer the audit query, and, with `webhookReceivers: 0`, written by this client.
   */
  audit?: AuditStore;
  /** How long a query waits for a worker before `get`/`audit` fall back (default 5 s). */
  queryTimeoutMs?: number;
  /** How long an update waits for a worker before failing with 503 (default 30 s). */
  updateTimeoutMs?: number;
  /**
   * How long a decision waits to be applied before it is sent as a signal instead and
   * answered as accepted (`AcceptedDecision`; default 10 s, GATE_DECISION_WAIT_S).
   */
  decisionWaitMs?: number;
  /**
   * Checked before a create starts anything: throws 503 `gate_busy` to shed the create
   * while the gate workers are behind (BacklogAdmission; the API sets it from
   * GATE_MAX_BACKLOG_S). Workflows' own gates (`requireApproval`) never pass through here.
   */
  admission?: { check(): void };
  /**
   * Webhook receivers the workers deliver to (their `GATE_WEBHOOK_URLS`). When it is 0
   * and `audit` is set, `create` writes the gate's `approval.requested` event to the store
   * itself, and `decide` and `consume` write the events their update appended (which the
   * gate hands back, see CallerWrites): each saves the gate one activity and one workflow
   * task. Left unset, the gate writes them (and their webhooks are not delayed to the
   * gate's next batch).
   */
  webhookReceivers?: number;
  /**
   * Ask Temporal to hand a new gate's first task to a worker on this client's own
   * connection (requires a client on a worker's NativeConnection; see StartApiOptions).
   */
  eagerStart?: boolean;
  /** The server's reviewer rule file (GATE_POLICY_FILE), applied to every create. */
  policy?: ReviewerPolicy;
  /**
   * Standing grants: creates use them (a request a grant covers is approved at creation)
   * and approvals give them (`grant` in a decision). None: no grant is used or given.
   */
  grants?: GrantStore;
  /**
   * The workers' notification settings and GATE_NOTIFY's targets: creates naming a target no
   * channel reaches are refused (422), and requests that name none tell the defaults.
   */
  notify?: CreateContext['notify'];
}

/** Result of `create`: `created` false means an idempotent replay of an existing request. */
export interface CreateResult {
  created: boolean;
  request: CreatedRequest;
}

/** A request's audit trail and whether its hash chain verifies. */

/**
 * The one place that talks to gate workflows; the API, the CLI and the MCP server use it.
 *
 * Configure it as the API does: with the workers' audit store and their number of webhook
 * receivers, the client writes the audit events of what it creates, decides and consumes,
 * and a gate's lifecycle runs no store activity at all.
 *
 * ```ts
 * import { GateClient, openAuditStore } from 'approval-gate/client';
 * const audit = await openAuditStore({ databaseUrl: process.env.GATE_DATABASE_URL }); // or { dataDir }
 * const gates = new GateClient(client, { taskQueue: 'approval-gate', audit, webhookReceivers: 0 });
 * setInterval(() => void gates.recoverAuditIntents().catch(() => undefined), 30_000).unref();
 * ```
 *
 * `webhookReceivers` is how many URLs the workers' GATE_WEBHOOK_URLS names (0: none; with
 * receivers the gate writes, so their webhooks go out at once). The interval finishes
 * what a caller that died between an update and its write left behind, as the API does
 * every 30 s; one process per store is enough. `new GateClient(client, { taskQueue })`
 * alone works, but every gate then writes its own events: three store activities per
 * lifecycle and twice the workflow tasks (test/integration/public-gate-client.test.ts).
 *
 * Every method throws GateError for what the caller can act on (404, 409, 403, 422, 413,
 * 503) and lets anything else (an outage, a bug) through unchanged.
 *
 * Every method that names a gate takes an optional `scope` (the API always passes the
 * caller's): a gate outside it answers 404 exactly like a missing one, before its state
 * is looked at, so nothing about another tenant's or another agent's request leaks.
 * Without a scope the caller is trusted with the whole namespace (in-process services,
 * which could signal the workflows directly anyway).
 */
export class GateClient {
  private readonly client: Client;
  private readonly queryMs: number;
  private readonly updateMs: number;
  private readonly decisionMs: number;
  /**
   * Set when this client writes the audit events of what it creates, decides and consumes:
   * it has the store, and no webhook receivers are configured (which the gate would
   * otherwise notify with its own write). The gate then schedules no store write for them.
   */
  private readonly callerAudit: CallerAudit | undefined;

  constructor(
    client: Client,
    private readonly options: GateClientOptions,
  ) {
    const ns = options.namespace;
    this.client =
      ns && ns !== client.options.namespace
        ? new Client({ connection: client.connection, namespace: ns, dataConverter: client.options.dataConverter })
        : client;
    this.queryMs = options.queryTimeoutMs ?? 5000;
    this.updateMs = options.updateTimeoutMs ?? 30_000;
    this.decisionMs = options.decisionWaitMs ?? 10_000;
    this.callerAudit = options.audit && options.webhookReceivers === 0 ? new CallerAudit(options.audit) : undefined;
  }

  /**
   * Opens a request, or returns the one its idempotency key already opened. One key is
   * one workflow: a second start with the key (concurrent or later, open or closed) is
   * refused by Temporal, and only then is the existing gate described, so a new request
   * costs one round trip. Throws 422/413/403 (see `prepareCreate`), 409 when the key was
   * used with another payload, 503 `gate_busy` when `admission` sheds it.
   */
  async create(body: unknown, caller: CreateCaller): Promise<CreateResult> {
    const prepared = prepareCreate(body, caller, { policy: this.options.policy, notify: this.options.notify });
    const { requestId, input, judgement } = prepared;
    // A rule that asks a person may let a standing grant answer instead (used once per request id).
    const grant = this.options.grants
      ? await applyStandingGrant(this.options.grants, this.options.audit, {
          ...prepared,
          payloadSha256: input.payload_sha256,
        })
      : undefined;
    if (grant) input.policy_decision = grant;
    this.options.admission?.check(); // after validation, so a bad body is refused at once and not retried
    const writer = this.callerAudit;
    let first: AuditEvent | undefined;
    let intent: string | undefined;
    if (writer) {
      const ids = { event_id: `evt_${randomUUID()}`, timestamp: new Date().toISOString() };
      first = requestedEvent(input, ids);
      intent = await writer.intend({ request_id: requestId, event: first });
      input.requested_event = intent ? { ...ids, recorded: true } : ids;
    }
    try {
      await this.client.workflow.start<typeof approvalGateWorkflow>(GATE_WORKFLOW_TYPE, {
        ...startOptions(requestId, input, this.options.taskQueue, randomUUID(), caller.tenant),
        ...(this.options.eagerStart ? { requestEagerStart: true } : {}),
      });
      // Only after the start: a refused start (a replayed key) must not leave a second first event.
      if (writer && first) await writer.settle(intent, [first]);
      const decided = input.policy_decision;
      // What replay re-judges; a lost record costs a replay one request, never the create.
      if (this.options.policy && this.options.audit)
        await recordEvaluation(this.options.audit, requestId, prepared.policyRequest, judgement, {
          decided_by: decided?.decided_by,
          via: 'api',
        }).catch(() => undefined);
      const warnings = judgement.shadow
        .filter((w) => w.mode === 'warn')
        .map((w) => ({ rule_id: w.rule_id, effect: w.effect, message: w.message }));
      return {
        created: true,
        request: {
          request_id: requestId,
          status: decided ? (decided.decision === 'approve' ? 'approved' : 'denied') : 'requested',
          expires_at: input.payload.expires_at,
          payload_sha256: input.payload_sha256,
          ...(judgement.version === 2
            ? {
                policy: {
                  effect: decided ? (decided.decision === 'approve' ? 'allow' : 'block') : judgement.effect,
                  rule_id: judgement.rule_id,
                  ...(decided ? { decided_by: decided.decided_by } : {}),
                  ...(decided?.reason ? { reason: decided.reason } : {}),
                  ...(grant?.grant_id ? { grant_id: grant.grant_id } : {}),
                },
              }
            : {}),
          ...(warnings.length > 0 ? { warnings } : {}),
        },
      };
    } catch (err) {
      // Any other failure may have started the gate after all: the intent stays for recovery to decide.
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      await writer?.drop(intent);
    }
    const desc = await this.describe(requestId);
    const m = memoOf(desc);
    if (caller.tenant !== undefined && !visibleTo({ tenant: caller.tenant }, gateOwnership(desc)))
      throw new GateError(409, 'idempotency_conflict', `request id ${requestId} is taken; use another Idempotency-Key`);
    if (m.create_sha256 === input.create_sha256) {
      return {
        created: false,
        request: {
          request_id: requestId,
          status: statusOf(desc),
          expires_at: m.expires_at ?? '',
          payload_sha256: m.payload_sha256 ?? '',
        },
      };
    }
    throw new GateError(
      409,
      'idempotency_conflict',
      `idempotency key reused with another payload: ${requestId} was created from different content`,
      { request_id: requestId },
    );
  }

  /**
   * The gate's live state, or, no worker answering within ~5 s, what visibility knows
   * (`stale: true`). When the gate's workflow task has already waited over a second for a
   * worker (its workers are behind: a query would wait behind the same backlog), the answer
   * comes from its history at once: its starting state if its first task has not run yet,
   * else what visibility knows; either way with the decisions it has received by signal and
   * not applied yet (`pending_decisions`). Throws 404.
   */
  async get(id: string, scope?: Scope): Promise<GateView> {
    checkId(id);
    const seen = await this.authorize(id, scope);
    const behind = seen !== undefined && waitsForWorker(seen);
    const queued = behind
      ? await this.deadline(this.queryMs, () => readQueued(this.client, id)).catch(() => undefined)
      : undefined;
    if (queued?.state) return { ...queued.state, stale: false, pending_decisions: queued.pending };
    if (!behind) {
      try {
        return { ...(await this.deadline(this.queryMs, () => this.handle(id).query(getGateQuery))), stale: false };
      } catch (err) {
        if (!isUnanswered(err)) throw await this.explain(err, id);
      }
    }
    const desc = seen ?? (await this.describe(id));
    if (desc.status.name === 'COMPLETED') {
      // A finished gate returned its final state: authoritative, no worker needed.
      const final = await this.deadline(this.queryMs, () => this.handle(id).result()).catch(() => undefined);
      if (final) return { ...final, stale: false };
    }
    const pending =
      queued?.pending ??
      (desc.raw.pendingWorkflowTask
        ? (await this.deadline(this.queryMs, () => readQueued(this.client, id)).catch(() => undefined))?.pending
        : []);
    return {
      ...summaryOf(desc),
      stale: true,
      workflow_status: desc.status.name,
      ...(pending ? { pending_decisions: pending } : {}),
    };
  }

  /** Gates by status / target / agent, inside `filter.scope`, from Temporal visibility (eventually consistent), newest first. */
  async list(filter: ListFilter = {}): Promise<GateSummary[]> {
    const limit = Math.min(Math.max(Math.trunc(filter.limit ?? 50), 1), 500);
    // No gate's target or agent holds a control character, and visibility errors on a NUL: nothing can match.
    if ([filter.target, filter.agentId].some((v) => v !== undefined && /[\u0000-\u001f\u007f]/.test(v))) return [];
    const out: GateSummary[] = [];
    const { query, keep } = visibilityFilter(filter);
    // One page for the whole answer: each page is a visibility round trip.
    for await (const info of this.client.workflow.list({ query, pageSize: limit })) {
      const s = summaryOf(info);
      if (keep(s)) out.push(s);
      if (out.length >= limit) break;
    }
    return out;
  }

  /**
   * How many gates of this deployment (its task queue) visibility holds in `status`:
   * eventually consistent, the source of the queue depth metric.
   */
  async count(status: ApprovalStatus): Promise<number> {
    const query = `${visibilityFilter({ status }).query} AND TaskQueue = ${quote(this.options.taskQueue)}`;
    const { count } = await this.client.workflow.count(query);
    return count;
  }

  /**
   * Applies a decision and answers with its result; the decision id makes retries safe.
   * A valid decision the gate cannot apply within `decisionWaitMs` (its workers are behind
   * or away) is not refused: it is sent as a signal with the same decision id and answered
   * as an `AcceptedDecision`; the gate applies it once when it gets to it, or refuses it and
   * audits the refusal (`decision.refused`). Throws 404/409/403/422; a 503 only when
   * Temporal itself does not answer.
   */
  async decide(id: string, message: DecisionMessage, scope?: Scope): Promise<DecisionOutcome> {
    const msg = parseDecision({ ...message, request_id: id });
    const seen = await this.authorize(id, scope);
    const handle = this.handle(id);
    const updateId = decisionKey(msg); // scoped by reviewer, like the gate's own dedup
    let result: DecisionResult;
    try {
      result = await this.update(
        id,
        updateId,
        async (writes) => {
          try {
            return await handle.executeUpdate(decideUpdate, { args: [msg, ...writes], updateId });
          } catch (err) {
            // Temporal keeps no record of an update its validator refused: report it, so the trail shows it.
            if (
              err instanceof WorkflowUpdateFailedError &&
              err.cause instanceof ApplicationFailure &&
              isFailureType(err.cause.type)
            ) {
              const record = {
                decision_id: msg.decision_id,
                reviewer_id: msg.reviewer_id,
                decision: msg.decision,
                refusal: err.cause.type ?? 'Error',
                message: err.cause.message,
              };
              await handle.signal(recordRefusalSignal, record).catch(() => undefined);
            }
            throw err;
          }
        },
        this.decisionMs,
      );
    } catch (err) {
      if (!isUnapplied(err)) throw err;
      return this.accept(id, msg, seen);
    }
    // The quorum gave a standing grant: store it, so later creates can use it. A retry stores it once.
    if (result.grant && this.options.grants) {
      const tenant = scope?.tenant ?? gateOwnership(await this.describe(id)).tenant ?? DEFAULT_TENANT;
      await issueGrant(this.options.grants, this.options.audit, result.grant, tenant);
    }
    return result;
  }

  /**
   * The durable way for a decision the gate did not apply in time: the `decide` signal,
   * which the server records at once and the gate applies in order (an update that was
   * still admitted meanwhile is deduplicated by the decision id). Throws 404/409 when the
   * gate is gone, and what Temporal threw when it did not answer (the API's 503).
   */
  private async accept(
    id: string,
    msg: DecisionMessage,
    seen: WorkflowExecutionDescription | undefined,
  ): Promise<AcceptedDecision> {
    try {
      await this.deadline(this.queryMs, () => this.handle(id).signal(decideSignal, msg));
    } catch (err) {
      // A gate that closed meanwhile is a conflict; anything else means Temporal did not take the signal (503).
      if (err instanceof WorkflowNotFoundError) throw await this.explain(err, id);
      throw err;
    }
    const status = seen ? statusOf(seen) : 'requested';
    return {
      request_id: id,
      decision_id: msg.decision_id,
      decision: msg.decision,
      reviewer_id: msg.reviewer_id,
      status,
      pending: true,
      applied: false,
      code: 'decision_accepted',
      message: `the gate's workers are behind, so ${id} has not applied this decision yet; it is recorded and will be applied in order (or refused, and the refusal audited) as soon as a worker gets to it. Read the request (or its audit trail) to see the outcome; re-sending it with the same decision_id is safe, a new decision_id is a second decision`,
    };
  }

  /** Sends a decision as a signal: no answer; a refusal is audited as `decision.refused`. Throws 404/409/422. */
  async signalDecision(id: string, message: DecisionMessage, scope?: Scope): Promise<void> {
    const msg = parseDecision({ ...message, request_id: id });
    await this.authorize(id, scope);
    await this.call(id, () => this.handle(id).signal(decideSignal, msg));
  }

  /** Takes the approved args, exactly once (external executor). Throws 409 when not approved or already consumed, 403 for another agent (404 when scoped). */
  async consume(id: string, consumerId: string, scope?: Scope): Promise<ConsumeResult> {
    await this.authorize(id, scope);
    const msg = { consumer_id: consumerId };
    const updateId = `consume_${randomUUID()}`;
    return this.update(id, updateId, (writes) =>
      this.handle(id).executeUpdate(consumeUpdate, { args: [msg, ...writes], updateId }),
    );
  }

  /**
   * An update whose events this client writes (see `callerAudit`): the audit intent first,
   * then `send` with the update's second argument (through `call`, which retries what the
   * server turned away), then the events written and the intent settled. A refused update
   * appended nothing: its intent goes.
   */
  private async update<T extends CallerEvents>(
    id: string,
    updateId: string,
    send: (writes: [CallerWrites] | []) => Promise<T>,
    budgetMs: number = this.updateMs,
  ): Promise<Omit<T, 'audit_events'>> {
    const intent = await this.callerAudit?.intend({ request_id: id, update_id: updateId });
    return this.call(
      id,
      async () => {
        try {
          return await this.written(intent, await send(this.writes(intent)));
        } catch (err) {
          if (err instanceof WorkflowUpdateFailedError) await this.callerAudit?.drop(intent);
          throw err;
        }
      },
      budgetMs,
    );
  }

  /**
   * Finishes the audit writes that callers sharing this client's store left behind when
   * they died between an update and its write (see `recoverAuditIntents`). The API runs it
   * every 30 s; a process that uses GateClient with an audit store and no API should run it too.
   */
  async recoverAuditIntents(options?: RecoverOptions): Promise<IntentRecovery> {
    const store = this.options.audit;
    if (!store) return { written: 0, dropped: 0, kept: 0, failed: 0 };
    return recoverAuditIntents(this.client, store, options);
  }

  /**
   * An update's second argument: none unless this client writes the events itself
   * (`callerAudit`); `recorded` when it holds an audit intent for them.
   */
  private writes(intent: string | undefined): [CallerWrites] | [] {
    if (!this.callerAudit) return [];
    return [intent ? CALLER_WRITES_RECORDED : CALLER_WRITES];
  }

  /**
   * Writes the events an update handed back (CallerWrites) and answers without them. Only
   * after the update returned, so the store receives events that are already in the
   * gate's history. A failed write is not the caller's problem: with an intent, recovery
   * writes them; without one, the gate's last batch sends them again.
   */
  private async written<T extends CallerEvents>(
    intent: string | undefined,
    result: T,
  ): Promise<Omit<T, 'audit_events'>> {
    const { audit_events: events, ...rest } = result;
    await this.callerAudit?.settle(intent, events ?? []);
    return rest;
  }

  /** Withdraws a pending request as its agent. Throws 409 once decided, 403 for another agent (404 when scoped). */
  async cancel(id: string, agentId: string, reason?: string, scope?: Scope): Promise<GateState> {
    await this.authorize(id, scope);
    const msg = { actor_id: agentId, actor_type: 'agent' as const, ...(reason ? { reason } : {}) };
    return this.call(id, () => this.handle(id).executeUpdate(cancelUpdate, { args: [msg] }));
  }

  /** The hash-chained trail (from the gate, else from the store) and whether it verifies. Throws 404. */
  async audit(id: string, scope?: Scope): Promise<AuditView> {
    checkId(id);
    await this.authorize(id, scope);
    let events: AuditEvent[];
    let source: AuditView['source'] = 'workflow';
    try {
      events = await this.deadline(this.queryMs, () => this.handle(id).query(getAuditQuery));
    } catch (err) {
      if (!isUnanswered(err) || !this.options.audit) throw await this.explain(err, id);
      source = 'store';
      events = await this.options.audit.list(id);
      if (events.length === 0 && !(await this.existence(id)).exists) throw notFound(id);
    }
    const v = verifyChain(events);
    const store =
      source === 'workflow' && this.options.audit ? storeCheck(await this.options.audit.list(id), events) : undefined;
    return {
      request_id: id,
      source,
      verified: v.ok,
      count: events.length,
      ...(v.ok ? {} : { problem: { index: v.index, reason: v.reason } }),
      ...(store ? { store } : {}),
      events,
    };
  }

  /** Resolves when Temporal answers for this namespace; throws 503 otherwise. */
  async health(): Promise<{ temporal: 'reachable'; namespace: string }> {
    const namespace = this.client.options.namespace;
    try {
      await this.deadline(3000, () => this.client.workflowService.describeNamespace({ namespace }));
      return { temporal: 'reachable', namespace };
    } catch (err) {
      throw new GateError(
        503,
        'temporal_unreachable',
        `Temporal is not reachable: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
  }

  private handle(id: string) {
    return this.client.workflow.getHandle<typeof approvalGateWorkflow>(id);
  }

  private deadline<T>(ms: number, fn: () => Promise<T>): Promise<T> {
    return this.client.connection.withDeadline(Date.now() + ms, fn);
  }

  private async call<T>(id: string, fn: () => Promise<T>, budgetMs: number = this.updateMs): Promise<T> {
    checkId(id);
    // Many callers at once can hit the server's limits on in-flight updates; back off and
    // retry within the call's own budget (a starved worker can keep the slots full for
    // seconds), never past it.
    const giveUpAt = Date.now() + budgetMs;
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.deadline(Math.max(1000, giveUpAt - Date.now()), fn);
      } catch (err) {
        const pause = Math.min(1000, 50 * 2 ** attempt) + Math.random() * 50;
        if (isTransientRejection(err) && Date.now() + pause < giveUpAt) {
          await new Promise((r) => setTimeout(r, pause));
          continue;
        }
        throw await this.explain(err, id);
      }
    }
  }

  private explain(err: unknown, id: string): Promise<unknown> {
    return explain(err, id, () => this.existence(id));
  }

  /**
   * With a scope: describes the gate and throws the same 404 as for a missing id unless
   * the scope may see it; returns the description for reuse. Without one: nothing.
   */
  private async authorize(id: string, scope: Scope | undefined): Promise<WorkflowExecutionDescription | undefined> {
    if (!scope) return undefined;
    checkId(id);
    let desc: WorkflowExecutionDescription;
    try {
      desc = await this.deadline(this.queryMs, () => this.describe(id));
    } catch (err) {
      throw await this.explain(err, id);
    }
    if (!visibleTo(scope, gateOwnership(desc))) throw notFound(id);
    return desc;
  }

  /** Describes a gate; 404 when there is none (or the workflow is not a gate). */
  private async describe(id: string): Promise<WorkflowExecutionDescription> {
    try {
      const d = await this.handle(id).describe();
      if (d.type !== GATE_WORKFLOW_TYPE) throw notFound(id);
      return d;
    } catch (err) {
      throw err instanceof WorkflowNotFoundError ? notFound(id) : err;
    }
  }

  private async existence(id: string): Promise<Existence> {
    try {
      const d = await this.describe(id);
      return { exists: true, status: statusOf(d), closed: d.status.name !== 'RUNNING' };
    } catch (err) {
      if (err instanceof GateError && err.status === 404) return { exists: false };
      throw err;
    }
  }
}

/**
 * The 503s that mean "not applied in time" (the workers are behind or away, the gate's
 * task keeps failing, its update slots stayed full), as `explain` words them: the decision
 * may still be applied, so it goes by signal. Temporal not answering at all is not one of them.
 */
function isUnapplied(err: unknown): boolean {
  return (
    err instanceof GateError && err.status === 503 && (err.code === 'gate_unavailable' || err.code === 'gate_busy')
  );
}

/** How long a workflow task may wait for a worker before a read stops waiting for it too. */
const BEHIND_MS = 1000;

/** True when the gate's workflow task has been scheduled for over BEHIND_MS and no worker has started it. */
function waitsForWorker(desc: WorkflowExecutionDescription): boolean {
  const t = desc.raw.pendingWorkflowTask;
  if (!t || t.state !== temporal.api.enums.v1.PendingWorkflowTaskState.PENDING_WORKFLOW_TASK_STATE_SCHEDULED)
    return false;
  return t.scheduledTime ? Date.now() - tsToDate(t.scheduledTime).getTime() > BEHIND_MS : false;
}

function parseDecision(message: DecisionMessage): DecisionMessage {
  refuseUnrepresentable({ args: message.args });
  const r = DecisionMessage.safeParse(message);
  if (!r.success) throw invalidInput('decision', r.error);
  const when = r.data.grant?.when;
  const problem = when === undefined ? null : grantConditionProblem(when);
  if (problem)
    throw new GateError(422, 'invalid_request', `grant.when is not a condition: ${problem}`, [
      { path: '$.grant.when', message: problem },
    ]);
  return r.data;
}

/** Request ids are printable ASCII; anything else cannot name a gate. */
function checkId(id: string): void {
  if (typeof id !== 'string' || !/^[\x21-\x7e]{1,200}$/.test(id)) throw notFound(String(id).slice(0, 200));
}
