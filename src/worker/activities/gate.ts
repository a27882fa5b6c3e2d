import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { FailureType } from '../../common/failure-types';
import { isDomainToolError } from '../../domain/errors';
import type { DomainRegistry } from '../../domain/registry';
import type { RecheckResult } from '../../domain/types';
import { reviewFor, type ReviewerPolicy } from '../../policy/reviewer-policy';
import type { AuditStore } from '../../store/audit-store';
import type { GrantStore } from '../../store/grant-store';
import { issueGrant } from '../../client/grants';
import { evaluatePolicy } from './policy';
import { createNotifyActivities } from './notify';
import type { ExecuteToolInput, GateActivities } from './contracts';

export interface GateActivityDeps {
  audit: AuditStore;
  domains: DomainRegistry;
  deliverWebhooks: GateActivities['deliverWebhooks'];
  /** Notification delivery (createNotifyActivities); absent: no channel is configured, every target is refused. */
  deliverNotice?: GateActivities['deliverNotice'];
  /** Configured webhook receivers; with none, gates schedule no delivery activities. */
  webhookReceivers: number;
  /** The worker's rule file (GATE_POLICY_FILE), for gates that workflows open; none: only the request's own rules. */
  policy?: ReviewerPolicy;
  /** Standing grants that may answer a workflow's gate at creation, and where the grants gates give are stored. */
  grants?: GrantStore;
  /** The worker's GATE_NOTIFY: who is told of a workflow's gate whose request and rule name nobody. */
  notifyDefaults?: readonly string[];
}

/**
 * Attempts of `recheckAndExecuteTool` whose re-check may fail on the store before the gate
 * fails closed (`invalidated`), as many as the separate `recheckSnapshot` was given.
 */
export const RECHECK_ATTEMPTS = 12;

/**
 * Heartbeats every second while `fn` runs, so Temporal notices a dead worker within the
 * heartbeat timeout and retries elsewhere; the retry is safe because tools are idempotent by key.
 */
async function heartbeating<T>(fn: () => Promise<T>): Promise<T> {
  const ctx = Context.current();
  const beat = setInterval(() => ctx.heartbeat(), 1000);
  try {
    return await fn();
  } finally {
    clearInterval(beat);
  }
}

/**
 * The gate's activities, with their dependencies injected so they unit-test without
 * a server. `executeTool` turns only a tool's own final refusal (`DomainToolError`) into a
 * non-retryable ToolFailed (an execution failure). Every other error (the store, the
 * network, a bug) is left for Temporal to retry, which is safe because every tool is
 * idempotent by key: the model is never told "the tool failed" when it may not have run.
 */
export function createGateActivities(deps: GateActivityDeps): GateActivities {
  const runTool = async ({ domain, session_id, tool, input, idempotency_key }: ExecuteToolInput) => {
    try {
      return await deps.domains.get(domain).execute(session_id, tool, input, idempotency_key);
    } catch (err) {
      if (!isDomainToolError(err)) throw err; // infrastructure or a bug: retried
      throw ApplicationFailure.create({
        type: FailureType.ToolFailed,
        message: err.message,
        nonRetryable: true,
        cause: err,
      });
    }
  };
  return {
    async recordAuditEvents({ events }) {
      await deps.audit.appendMany(events);
      return { webhook_receivers: deps.webhookReceivers };
    },
    deliverWebhooks: deps.deliverWebhooks,
    deliverNotice: deps.deliverNotice ?? createNotifyActivities({ settings: {} }).deliverNotice,
    recheckSnapshot: async ({ domain, session_id, tool, input, snapshot }) =>
      deps.domains.get(domain).recheck(session_id, tool, input, snapshot),
    resolveReviewers: async ({ action, approvals_required, reviewer_roles }) =>
      reviewFor(deps.policy, action, { approvals_required, reviewer_roles }),
    evaluatePolicy: (input) =>
      evaluatePolicy(
        { policy: deps.policy, grants: deps.grants, audit: deps.audit, notify: deps.notifyDefaults },
        input,
      ),
    async issueGrant({ grant, tenant }) {
      if (!deps.grants) return { stored: false };
      await issueGrant(deps.grants, deps.audit, grant, tenant);
      return { stored: true };
    },
    recheckAndExecuteTool: ({ snapshot, ...call }) =>
      heartbeating(async () => {
        const d = deps.domains.get(call.domain);
        const executed = d.executed?.bind(d);
        if (!executed) return { unsupported: true };
        const ran = () => executed(call.session_id, call.tool, call.idempotency_key);
        // A retry after the effect skips the re-check: it would see the tool's own change as drift.
        if (!(await ran())) {
          let recheck: RecheckResult;
          try {
            recheck = await d.recheck(call.session_id, call.tool, call.input, snapshot);
          } catch (err) {
            // As the separate re-check did: a store that stays unreachable through its attempts fails closed.
            if (Context.current().info.attempt < RECHECK_ATTEMPTS || (await ran())) throw err;
            const message = err instanceof Error ? err.message : String(err);
            return {
              ran: false,
              recheck: {
                ok: false,
                reason: `could not verify the approved snapshot: ${message}`,
                mismatches: ['recheck unavailable'],
              },
            };
          }
          // Asked again after a refusal: an attempt given up for dead may have committed the effect meanwhile.
          if (!recheck.ok && !(await ran())) return { ran: false, recheck };
        }
        return { ran: true, output: await runTool(call) };
      }),
    reviseToolCall: ({ domain, session_id, tool, input, patch }) =>
      deps.domains.get(domain).revise(session_id, tool, input, patch),
    executeTool: (call) => heartbeating(() => runTool(call)),
  };
}
