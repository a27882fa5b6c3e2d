import { compileCondition, runCondition, type CompiledCondition } from './cel';
import { activationOf, type PolicyRequest } from './judge';

/** Grant conditions by source: each compiled once per process (a grant's `when` is reused for every create). */
const conditions = new Map<string, CompiledCondition>();

function compiled(when: string): CompiledCondition {
  let c = conditions.get(when);
  if (!c) {
    if (conditions.size >= 1000) conditions.clear();
    c = compileCondition(when);
    conditions.set(when, c);
  }
  return c;
}

/** Why a grant's `when` cannot be used (for a 422 on the decision), or null. */
export function grantConditionProblem(when: string): string | null {
  const c = compiled(when);
  return c.ok ? null : c.error;
}

/** True when a grant's condition (if any) holds for the request; a condition that fails says no (fail closed). */
export function grantApplies(grant: { when?: string }, request: PolicyRequest): boolean {
  if (grant.when === undefined) return true;
  const c = compiled(grant.when);
  if (!c.ok) return false;
  return runCondition(c, activationOf(request)).matched === true;
}
