import { readFileSync } from 'node:fs';
import { parsePolicyText } from './parse';
import { PolicyFileError, type ReviewerPolicy } from './reviewer-policy';

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
