import { compileCondition, type CompiledCondition } from './cel';
import { durationSeconds, type PolicyFileV2, type RuleV2 } from './policy-v2';
import { evidenceChain } from '../common/escalation';
import type { PolicyEvidence } from './policy-evidence';

/** One rule ready to judge: its action as a regular expression and its condition compiled. */
export interface CompiledRule {
  index: number;
  rule: RuleV2;
  pattern: RegExp;
  condition?: CompiledCondition;
  ttl_seconds?: number;
  grants?: { max_for_seconds: number; max_uses: number };
  escalation?: NonNullable<PolicyEvidence['escalation']>;
}

/** A version 2 file compiled once per file hash. */
export interface CompiledPolicy {
  sha256: string;
  file: PolicyFileV2;
  rules: CompiledRule[];
}

/** Compiled files by hash: a file is parsed and type-checked once, however many processes' requests it judges. */
const cache = new Map<string, CompiledPolicy>();
/** A process sees few files (a reload, `gate policy replay`); past this many the cache starts over. */
const CACHE_MAX = 16;

/** Compiles a validated file (cached by `sha256`). Conditions that do not compile are kept with their error: lint reports them, judging fails closed on them. */
export function compilePolicy(file: PolicyFileV2, sha256: string): CompiledPolicy {
  const hit = cache.get(sha256);
  if (hit) return hit;
  const compiled: CompiledPolicy = {
    sha256,
    file,
    rules: file.rules.map((rule, index) => compileRule(file, rule, index)),
  };
  if (cache.size >= CACHE_MAX) cache.clear();
  cache.set(sha256, compiled);
  return compiled;
}

function compileRule(file: PolicyFileV2, rule: RuleV2, index: number): CompiledRule {
  const chain = rule.escalation !== undefined ? ownEntry(file.escalations, rule.escalation) : undefined;
  return {
    index,
    rule,
    pattern: globRegExp(rule.action),
    ...(rule.when !== undefined ? { condition: compileCondition(rule.when) } : {}),
    ...(rule.ttl !== undefined ? { ttl_seconds: durationSeconds(rule.ttl) } : {}),
    ...(rule.grants
      ? { grants: { max_for_seconds: durationSeconds(rule.grants.max_for), max_uses: rule.grants.max_uses } }
      : {}),
    ...(chain && rule.escalation ? { escalation: evidenceChain(rule.escalation, chain) } : {}),
  };
}

/** A record's own entry, never one from its prototype (a chain named `constructor`). */
export function ownEntry<T>(rec: Record<string, T>, key: string): T | undefined {
  return Object.prototype.hasOwnProperty.call(rec, key) ? rec[key] : undefined;
}

/** `*` stands for any run of characters, dots included (as in version 1). */
export function globRegExp(pattern: string): RegExp {
  return new RegExp(`^${pattern.split('*').map(escapeRegExp).join('.*')}$`);
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
