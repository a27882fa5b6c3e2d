import { applyPolicyDecision, type GateInput, type GateState } from '../../common/gate-state';
import type { AuditTrail } from './audit-trail';

/**
 * What the rule file decided before any person saw the gate: one `policy.shadow` event
 * per warn or audit rule that would have acted (counted in gate_policy_shadow_total as the
 * trail records it), then, for allow, block or a standing grant, the deciding event by the
 * system under the rule's or grant's name.
 */
export function applyPolicyAtCreation(state: GateState, input: GateInput, trail: AuditTrail, now: string): void {
  for (const s of input.policy_shadow ?? []) {
    trail.append({
      event_type: 'policy.shadow',
      actor_type: 'system',
      actor_id: `policy:${s.rule_id}`,
      note: s.message,
      data: {
        rule_id: s.rule_id,
        mode: s.mode,
        effect: s.effect,
        values: s.values,
        ...(s.error ? { error: s.error } : {}),
        policy_sha256: state.payload.policy?.policy_sha256 ?? null,
      },
    });
  }
  const decided = input.policy_decision;
  if (!decided) return;
  for (const e of applyPolicyDecision(state, decided, now)) trail.append(e);
  // A standing grant's use, on the gate it approved (the grant's own chain has it too).
  if (decided.grant_id)
    trail.append({
      event_type: 'grant.used',
      actor_type: 'system',
      actor_id: decided.decided_by,
      note: decided.reason,
      data: { grant_id: decided.grant_id, rule_id: decided.rule_id ?? null },
    });
}
