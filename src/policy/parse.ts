import { parse as parseYaml, YAMLParseError } from 'yaml';
import { sha256Hex } from '../common/hashing';
import { lintV2 } from './lint';
import { validatePolicy, PolicyFileError, type ReviewerPolicy } from './reviewer-policy';

/** Parses rule-file text (JSON when `source` ends in .json, else YAML) and validates it. */
export function parsePolicyText(text: string, source: string): ReviewerPolicy {
  const r = lintPolicyText(text, source);
  if (r.problems.length > 0 || !r.policy) throw new PolicyFileError(source, r.problems);
  return r.policy;
}

/**
 * Every problem of a rule file, each with its place, and the validated file when there is
 * none: what `gate policy lint` prints and what loading a file refuses on. Version 1 files
 * are checked as they always were; `version: 2` files by src/policy/lint.ts.
 */
export function lintPolicyText(text: string, source: string): { problems: string[]; policy?: ReviewerPolicy } {
  const sha256 = sha256Hex(text);
  let parsed: unknown;
  try {
    parsed = source.toLowerCase().endsWith('.json') ? JSON.parse(text) : parseYaml(text, { maxAliasCount: 100 });
  } catch (err) {
    const where = err instanceof YAMLParseError && err.linePos ? ` at line ${err.linePos[0].line}` : '';
    return {
      problems: [
        `is not valid ${source.endsWith('.json') ? 'JSON' : 'YAML'}${where}: ${(err as Error).message.split('\n')[0]}`,
      ],
    };
  }
  if (isVersion2(parsed)) {
    const r = lintV2(parsed);
    if (r.problems.length > 0 || !r.file) return { problems: r.problems };
    return { problems: [], policy: { rules: [], v2: r.file, sha256, source } };
  }
  try {
    return { problems: [], policy: validatePolicy(parsed, sha256, source) };
  } catch (err) {
    if (err instanceof PolicyFileError) return { problems: err.problems };
    throw err;
  }
}

function isVersion2(parsed: unknown): boolean {
  return parsed !== null && typeof parsed === 'object' && (parsed as { version?: unknown }).version === 2;
}
