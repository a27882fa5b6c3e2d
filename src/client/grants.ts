import type { IssuedGrant } from '../common/gate-types';
import { grantApplies } from '../policy/grants';
import type { AuditStore } from '../store/audit-store';
import type { GrantStore } from '../store/grant-store';
import { recordGrantEvent } from '../store/policy-events';
import type { Judgement, PolicyRequest } from '../policy/judge';
import type { PolicyDecision } from '../policy/policy-evidence';

/** The request a grant may answer. */
export interface GrantAsk {
  requestId: string;
  tenant: string;
  judgement: Judgement;
  policyRequest: PolicyRequest;
  payloadSha256?: string;
}

/**
 * Lets a standing grant answer a create that its rule would put before a person: the
 * oldest usable grant of the same tenant, agent, action and target under the deciding
 * rule, whose `when` holds, gives one use and the gate starts `approved` by
 * `grant:<id>`. The use is audited on the grant's own chain here and on the gate by its
 * first events. Returns the gate's pre-decision, or undefined when no grant applies.
 */
export async function applyStandingGrant(
  store: GrantStore,
  audit: AuditStore | undefined,
  ask: GrantAsk,
): Promise<PolicyDecision | undefined> {
  const { judgement: j, policyRequest: q } = ask;
  if (j.effect !== 'require' || !j.grants || j.rule_id === null) return undefined;
  const candidates = await store.candidates({
    tenant: ask.tenant,
    agent_id: q.agent,
    action: q.action,
    target: q.target,
    rule_id: j.rule_id,
  });
  for (const g of candidates) {
    if (!grantApplies(g, q)) continue;
    const use = await store.use(g.grant_id, ask.requestId);
    if (use === 'unavailable') continue; // used up or revoked since it was read: try the next one
    const decision: PolicyDecision = {
      decision: 'approve',
      decided_by: `grant:${g.grant_id}`,
      rule_id: j.rule_id,
      grant_id: g.grant_id,
      reason: `standing grant ${g.grant_id} given by ${g.reviewers.join(', ')} (use ${use === 'used' ? g.uses + 1 : g.uses} of ${g.max_uses})`,
    };
    if (audit && use === 'used')
      await recordGrantEvent(
        audit,
        g.grant_id,
        'grant.used',
        { actor_type: 'agent', actor_id: q.agent },
        {
          request_id: ask.requestId,
          ...(ask.payloadSha256 ? { payload_sha256: ask.payloadSha256 } : {}),
          uses: g.uses + 1,
          max_uses: g.max_uses,
        },
      );
    return decision;
  }
  return undefined;
}

/** Stores a grant an approving quorum gave and opens its chain with `grant.issued` (once, however often the decision is retried). */
export async function issueGrant(
  store: GrantStore,
  audit: AuditStore | undefined,
  grant: IssuedGrant,
  tenant: string,
): Promise<void> {
  const fresh = await store.issue(grant, tenant);
  if (fresh && audit)
    await recordGrantEvent(
      audit,
      grant.grant_id,
      'grant.issued',
      { actor_type: 'human', actor_id: grant.reviewers[grant.reviewers.length - 1] ?? 'unknown' },
      { ...grant, tenant },
    );
}
