import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { parse as parseYaml, YAMLParseError } from 'yaml';
import { PolicyFileError, validatePolicy, type ReviewerPolicy } from '../core/reviewer-policy';

/**
 * Reads and validates GATE_POLICY_FILE. `.json` files are parsed as JSON, anything else
 * as YAML (YAML 1.2 is a superset of JSON, but JSON's own parser gives clearer errors for
 * a JSON file). Throws PolicyFileError naming the file and every problem, so `gate api`
 * refuses to start on a bad file instead of running with rules nobody wrote.
 */
export function loadPolicyFile(file: string): ReviewerPolicy {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new PolicyFileError(file, [`cannot be read: ${(err as Error).message}`]);
  }
  return parsePolicyText(text, file);
}

/** Parses rule-file text (JSON when `source` ends in .json, else YAML) and validates it. */
export function parsePolicyText(text: string, source: string): ReviewerPolicy {
  const sha256 = createHash('sha256').update(text, 'utf8').digest('hex');
  let parsed: unknown;
  try {
    parsed = source.toLowerCase().endsWith('.json') ? JSON.parse(text) : parseYaml(text, { maxAliasCount: 100 });
  } catch (err) {
    const where = err instanceof YAMLParseError && err.linePos ? ` at line ${err.linePos[0].line}` : '';
    throw new PolicyFileError(source, [
      `is not valid ${source.endsWith('.json') ? 'JSON' : 'YAML'}${where}: ${(err as Error).message.split('\n')[0]}`,
    ]);
  }
  return validatePolicy(parsed, sha256, source);
}
