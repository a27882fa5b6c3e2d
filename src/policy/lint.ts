import { compileCondition } from './cel';
import { globRegExp, ownEntry } from './compile';
import { durationSeconds, PolicyFileV2, type RuleV2 } from './policy-v2';
import { pathText } from './reviewer-policy';

/**
 * Every problem of a parsed version 2 file, each with its place (`rules[2].when: ...`):
 * the schema's, repeated ids, conditions that do not parse or type-check, rules no request
 * can reach, escalation chains that do not exist or outlive the rule's ttl, grants where
 * no person decides, and tests that name rules the file does not have. Empty: the file is
 * good. Returns the validated file alongside.
 */
export function lintV2(parsed: unknown): { problems: string[]; file?: PolicyFileV2 } {
  const r = PolicyFileV2.safeParse(parsed);
  if (!r.success) return { problems: r.error.issues.map((i) => `${pathText(i.path)}: ${i.message}`) };
  const file = r.data;
  const problems: string[] = [];
  const ids = new Map<string, number>();
  file.rules.forEach((rule, i) => {
    const at = `rules[${i}]`;
    const earlier = ids.get(rule.id);
    if (earlier !== undefined) problems.push(`${at}.id: "${rule.id}" repeats rules[${earlier}].id`);
    else ids.set(rule.id, i);
    if (rule.when !== undefined) {
      const c = compileCondition(rule.when);
      if (!c.ok) problems.push(`${at}.when: ${c.error}`);
    }
    if (rule.roles && new Set(rule.roles).size !== rule.roles.length)
      problems.push(`${at}.roles: a role is listed twice`);
    if (rule.grants && rule.effect !== 'require')
      problems.push(`${at}.grants: only a require rule has standing grants (this one is ${rule.effect})`);
    const shadowed = coveringRule(file.rules, i);
    if (shadowed !== undefined)
      problems.push(
        `${at}: unreachable: rules[${shadowed}] ("${file.rules[shadowed]!.id}") matches every request this rule would, and decides first`,
      );
    problems.push(...chainProblems(file, rule, at));
  });
  file.tests.forEach((t, i) => {
    const id = t.expect.rule_id;
    if (id !== undefined && id !== null && !ids.has(id))
      problems.push(`tests[${i}].expect.rule_id: no rule has the id "${id}"`);
  });
  return { problems, file };
}

function chainProblems(file: PolicyFileV2, rule: RuleV2, at: string): string[] {
  if (rule.escalation === undefined) return [];
  const chain = ownEntry(file.escalations, rule.escalation);
  if (!chain) {
    const known = Object.keys(file.escalations);
    return [
      `${at}.escalation: no chain "${rule.escalation}" in escalations${known.length ? ` (there are ${known.join(', ')})` : ''}`,
    ];
  }
  if (rule.ttl === undefined) return [];
  const ttl = durationSeconds(rule.ttl);
  return chain.levels.flatMap((l, j) =>
    durationSeconds(l.after) >= ttl
      ? [
          `${at}.escalation: escalations.${rule.escalation}.levels[${j}] (after ${l.after}) is at or after the rule's ttl (${rule.ttl}): the request expires first`,
        ]
      : [],
  );
}

/**
 * An earlier enforced rule that decides every request rule `i` would match, making `i`
 * unreachable: it has no condition, its action pattern covers `i`'s, and `i` cannot win
 * through "block beats everything" (it is not a block, or the earlier rule blocks too).
 * Shadow rules are never unreachable: every one of them is evaluated.
 */
function coveringRule(rules: readonly RuleV2[], i: number): number | undefined {
  const rule = rules[i]!;
  if (rule.mode !== 'enforce') return undefined;
  for (let j = 0; j < i; j++) {
    const e = rules[j]!;
    if (e.mode !== 'enforce' || e.when !== undefined) continue;
    if (rule.effect === 'block' && e.effect !== 'block') continue;
    // `*` in the earlier pattern matches any text, a `*` of the later one included.
    if (globRegExp(e.action).test(rule.action)) return j;
  }
  return undefined;
}
