import { Environment } from '@marcbachmann/cel-js';
import { canonicalJson, sha256Hex } from '../common/hashing';

// CEL conditions of the rule file (`when:`), on @marcbachmann/cel-js: pure JavaScript, no
// dependencies, a type checker, and an expression parsed once evaluates many times
// (docs/policy.md says why this library). Pure: no Node, no Temporal.

/** The variables a condition may read, with their CEL types (what `gate policy lint` checks against). */
export const CEL_VARIABLES = {
  action: 'string',
  target: 'string',
  summary: 'string',
  args: 'map',
  blast_radius: 'map',
  preconditions: 'map',
  agent: 'string',
  tenant: 'string',
} as const;
export type CelVariable = keyof typeof CEL_VARIABLES;

/** The request as a condition sees it. */
export type CelActivation = Record<CelVariable, unknown>;

let env: Environment | undefined;
function environment(): Environment {
  if (env) return env;
  let e = new Environment({ unlistedVariablesAreDyn: false, limits: { maxAstNodes: 2000, maxDepth: 64 } });
  for (const [name, type] of Object.entries(CEL_VARIABLES)) e = e.registerVariable(name, type);
  env = e;
  return e;
}

/** A condition ready to evaluate, or why it cannot be. */
export type CompiledCondition =
  | { ok: true; source: string; paths: string[]; evaluate: (a: CelActivation) => unknown }
  | { ok: false; source: string; error: string };

/**
 * Parses and type-checks a condition once. A condition must be a bool (or `dyn`, as a map
 * field is until it is read): `args.amount` alone is refused, `args.amount > 5` is fine.
 */
export function compileCondition(source: string): CompiledCondition {
  try {
    const e = environment();
    const parsed = e.parse(source);
    const checked = parsed.check();
    if (!checked.valid) return { ok: false, source, error: firstLine(checked.error?.message ?? 'type error') };
    if (checked.type !== 'bool' && checked.type !== 'dyn')
      return { ok: false, source, error: `a condition must be a bool, this one is ${checked.type}` };
    return { ok: true, source, paths: readPaths(parsed.ast), evaluate: (a) => parsed(a) };
  } catch (err) {
    return { ok: false, source, error: firstLine(err instanceof Error ? err.message : String(err)) };
  }
}

/** A condition's answer: true or false, or the error that stopped it (a missing field, a type error, a non-bool). */
export type ConditionResult = { matched: boolean; error?: undefined } | { matched?: undefined; error: string };

export function runCondition(c: Extract<CompiledCondition, { ok: true }>, a: CelActivation): ConditionResult {
  try {
    const v = c.evaluate(a);
    if (typeof v !== 'boolean') return { error: `the condition gave ${typeof v}, not a bool` };
    return { matched: v };
  } catch (err) {
    return { error: firstLine(err instanceof Error ? err.message : String(err)) };
  }
}

/** Longest value kept as is in the evidence; a longer one is named by its size and digest. */
const MAX_VALUE_CHARS = 200;

/** The values of the paths a condition reads, as the evidence records them (missing ones left out). */
export function valuesOf(paths: readonly string[], a: CelActivation): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const p of paths) {
    const v = lookup(a, p);
    if (v === undefined) continue;
    const json = canonicalJson(v);
    out[p] = json.length <= MAX_VALUE_CHARS ? v : `<${json.length} bytes, sha256 ${sha256Hex(json).slice(0, 16)}>`;
  }
  return out;
}

/** Reads a path made by `readPaths` (`args.amount`, `args["a b"]`) from the activation, own properties only. */
export function lookup(a: CelActivation, path: string): unknown {
  const parts = splitPath(path);
  let cur: unknown = a;
  for (const k of parts) {
    if (cur === null || typeof cur !== 'object' || !Object.prototype.hasOwnProperty.call(cur, k)) return undefined;
    cur = (cur as Record<string, unknown>)[k];
  }
  return cur;
}

function splitPath(path: string): string[] {
  const parts: string[] = [];
  const re = /([A-Za-z_][A-Za-z0-9_]*)|\[("(?:[^"\\]|\\.)*")\]/g;
  for (let m = re.exec(path); m; m = re.exec(path)) parts.push(m[1] ?? (JSON.parse(m[2]!) as string));
  return parts;
}

/**
 * The request fields a condition reads: each member chain rooted at a variable
 * (`args.amount`, `blast_radius.services`, `action`), longest first, so `explain` and the
 * evidence show the values that decided.
 */
export function readPaths(ast: unknown): string[] {
  const found = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!isNode(node)) return;
    const p = pathOf(node);
    if (p) {
      found.add(p);
      return;
    }
    visit(node.args);
  };
  visit(ast);
  return [...found];
}

function isNode(v: unknown): v is { op: string; args: unknown } {
  return v !== null && typeof v === 'object' && typeof (v as { op?: unknown }).op === 'string';
}

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

function pathOf(node: { op: string; args: unknown }): string | undefined {
  if (node.op === 'id') {
    const name = node.args as string;
    return Object.prototype.hasOwnProperty.call(CEL_VARIABLES, name) ? name : undefined;
  }
  if (node.op === '.' || node.op === '.?') {
    const [base, key] = node.args as [unknown, string];
    const b = isNode(base) ? pathOf(base) : undefined;
    return b === undefined ? undefined : `${b}${IDENT.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`}`;
  }
  if (node.op === '[]' || node.op === '[?]') {
    const [base, key] = node.args as [unknown, unknown];
    const b = isNode(base) ? pathOf(base) : undefined;
    if (b === undefined || !isNode(key) || key.op !== 'value' || typeof key.args !== 'string') return undefined;
    return `${b}${IDENT.test(key.args) ? `.${key.args}` : `[${JSON.stringify(key.args)}]`}`;
  }
  return undefined;
}

function firstLine(s: string): string {
  return s.split('\n')[0]!.trim();
}
