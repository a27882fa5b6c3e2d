import { judge, type PolicyRequest } from './judge';
import type { PolicyEffect } from './policy-v2';
import type { ReviewerPolicy } from './reviewer-policy';

/** A request as the audit store recorded its judgement (`policy.evaluated`). */
export interface RecordedEvaluation {
  request_id: string;
  at: string;
  request: PolicyRequest;
  was: { effect: PolicyEffect; rule_id: string | null };
}

/** One line of the replay table: requests that went `was` and would now go `would`, under one rule of the new file. */
export interface ReplayLine {
  /** The new file's deciding rule (`defaults` when none matched). */
  rule_id: string;
  was: PolicyEffect;
  would: PolicyEffect;
  requests: number;
}

export interface ReplayReport {
  policy_sha256: string;
  total: number;
  changed: number;
  /** Every (rule, was, would) with its count, rules in file order then `defaults`, changes first. */
  lines: ReplayLine[];
  /** Requests whose effect would change, oldest first (at most `maxChanged`). */
  changes: { request_id: string; at: string; action: string; was: string; would: string }[];
}

/**
 * Judges recorded requests again under `policy` and counts what would change, per rule of
 * the new file. Pure: the caller reads the records from the audit store.
 */
export function replayPolicy(
  policy: ReviewerPolicy,
  records: readonly RecordedEvaluation[],
  opts: { maxChanged?: number } = {},
): ReplayReport {
  const max = opts.maxChanged ?? 50;
  const counts = new Map<string, ReplayLine>();
  const changes: ReplayReport['changes'] = [];
  let changed = 0;
  for (const rec of records) {
    const j = judge(policy, rec.request);
    const rule = j.rule_id ?? 'defaults';
    const key = JSON.stringify([rule, rec.was.effect, j.effect]);
    const line = counts.get(key) ?? { rule_id: rule, was: rec.was.effect, would: j.effect, requests: 0 };
    line.requests++;
    counts.set(key, line);
    if (j.effect !== rec.was.effect) {
      changed++;
      if (changes.length < max)
        changes.push({
          request_id: rec.request_id,
          at: rec.at,
          action: rec.request.action,
          was: label(rec.was),
          would: label({ effect: j.effect, rule_id: j.rule_id }),
        });
    }
  }
  const order = new Map((policy.v2?.rules ?? []).map((r, i) => [r.id, i]));
  const rank = (id: string) => order.get(id) ?? Number.MAX_SAFE_INTEGER;
  const lines = [...counts.values()].sort(
    (a, b) =>
      rank(a.rule_id) - rank(b.rule_id) ||
      Number(b.was !== b.would) - Number(a.was !== a.would) ||
      b.requests - a.requests,
  );
  return { policy_sha256: policy.sha256, total: records.length, changed, lines, changes };
}

function label(o: { effect: PolicyEffect; rule_id: string | null }): string {
  return `${o.effect} (${o.rule_id ?? 'defaults'})`;
}
