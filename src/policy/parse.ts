import { parse as parseYaml, YAMLParseError } from 'yaml';
import { sha256Hex } from '../common/hashing';
import { validatePolicy, PolicyFileError, type ReviewerPolicy } from './reviewer-policy';

/** Parses rule-file text (JSON when `source` ends in .json, else YAML) and validates it. */
export function parsePolicyText(text: string, source: string): ReviewerPolicy {
  const sha256 = sha256Hex(text);
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
