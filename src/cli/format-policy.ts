import type { Json } from './http';
import { renderTable } from './table';

/** `gate policy explain` for a person: the outcome, then every rule in file order with what it made of the request. */
export function formatExplanation(e: Json): string {
  const o = (e.outcome ?? {}) as Json;
  const rules = (Array.isArray(e.rules) ? e.rules : []) as Json[];
  const shadow = (Array.isArray(e.shadow) ? e.shadow : []) as Json[];
  const head = [
    `outcome: ${String(o.effect)} by ${o.rule_id ? `rule ${String(o.rule_id)}` : 'the defaults'}` +
      (o.reason ? ` (${String(o.reason)})` : ''),
    ...(o.effect === 'require'
      ? [
          `  reviewers: ${Number(o.approvals_required ?? 1)} of ${
            Array.isArray(o.roles) && o.roles.length ? `roles ${(o.roles as string[]).join(', ')}` : 'any reviewer'
          }`,
        ]
      : []),
    ...(o.problem ? [`  refused: ${String(o.problem)}`] : []),
    `file: ${String(e.source ?? '(none)')}  version ${String(e.version ?? '-')}  sha256 ${String(e.policy_sha256 ?? '-')}`,
  ];
  const table = renderTable(
    ['#', 'RULE', 'MODE', 'EFFECT', 'ACTION', 'WHEN', 'VALUES', ''],
    rules.map((r) => [
      String(r.index),
      String(r.rule_id),
      String(r.mode),
      String(r.effect),
      `${String(r.action)} ${r.action_matched ? 'matched' : 'no'}`,
      r.when === undefined
        ? '-'
        : r.error
          ? `error: ${String(r.error)}`
          : r.when_matched === undefined
            ? 'not evaluated'
            : String(r.when_matched),
      r.values ? JSON.stringify(r.values) : '',
      r.decided ? '<- decides' : r.matched && r.mode !== 'enforce' ? '(shadow)' : '',
    ]),
    { 5: 60, 6: 60 },
  );
  const warn = shadow.map((s) => `  ${String(s.mode)}: ${String(s.message)}`);
  return [...head, '', table, ...(warn.length ? ['', 'shadow rules:', ...warn] : [])].join('\n');
}
