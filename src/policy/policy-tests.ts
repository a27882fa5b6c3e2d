import { judge, type PolicyRequest } from './judge';
import { PolicyTestRequest, type PolicyEffect } from './policy-v2';
import type { ReviewerPolicy } from './reviewer-policy';

/** A request as `explain` and `tests:` write it, as the judge reads it (`agent_id` is taken for `agent`). */
export function policyRequestOf(raw: unknown): { request: PolicyRequest } | { problems: string[] } {
  const r = PolicyTestRequest.safeParse(raw);
  if (!r.success) return { problems: r.error.issues.map((i) => `${i.path.join('.') || '(top level)'}: ${i.message}`) };
  const q = r.data;
  return {
    request: {
      action: q.action,
      target: q.target,
      summary: q.summary,
      args: q.args,
      blast_radius: q.blast_radius,
      preconditions: q.preconditions,
      agent: q.agent_id ?? q.agent,
      tenant: q.tenant,
      ...(q.approvals_required !== undefined ? { approvals_required: q.approvals_required } : {}),
      ...(q.reviewer_roles ? { reviewer_roles: q.reviewer_roles } : {}),
    },
  };
}

/** One `tests:` case's result. */
export interface PolicyTestResult {
  name: string;
  ok: boolean;
  expected: { effect: PolicyEffect; rule_id?: string | null };
  got: { effect: PolicyEffect; rule_id: string | null };
}

/** Runs the file's own `tests:` cases against it. A case that names no `rule_id` checks the effect only. */
export function runPolicyTests(policy: ReviewerPolicy): PolicyTestResult[] {
  return (policy.v2?.tests ?? []).map((t) => {
    const q = policyRequestOf(t.request);
    if ('problems' in q) throw new Error(`test "${t.name}": ${q.problems.join('; ')}`); // the schema checked it already
    const j = judge(policy, q.request);
    const got = { effect: j.effect, rule_id: j.rule_id };
    const ok = got.effect === t.expect.effect && (t.expect.rule_id === undefined || t.expect.rule_id === got.rule_id);
    return { name: t.name, ok, expected: t.expect, got };
  });
}

/** A failing case as a diff: `- expected` and `+ got`, one line per field that differs. */
export function testDiff(r: PolicyTestResult): string[] {
  const lines: string[] = [];
  if (r.expected.effect !== r.got.effect) lines.push(`- effect: ${r.expected.effect}`, `+ effect: ${r.got.effect}`);
  if (r.expected.rule_id !== undefined && r.expected.rule_id !== r.got.rule_id)
    lines.push(`- rule_id: ${String(r.expected.rule_id)}`, `+ rule_id: ${String(r.got.rule_id)}`);
  return lines;
}
