import fs from 'node:fs';
import path from 'node:path';
import { UsageError } from './errors';

/** The project root: the nearest folder above this file holding package.json (works from src/ and dist/src/). */
function packageRoot(from: string = __dirname): string {
  let dir = from;
  while (!fs.existsSync(path.join(dir, 'package.json'))) {
    const up = path.dirname(dir);
    if (up === dir) return process.cwd();
    dir = up;
  }
  return dir;
}

/**
 * Where `<scenario>` points: an existing JSON file path, else
 * `examples/scenarios/<scenario>.json` under the working directory, then under the package.
 */
export function resolveScenario(scenario: string, cwd: string = process.cwd()): string {
  const candidates = [path.resolve(cwd, scenario)];
  if (!scenario.includes('/') && !scenario.includes(path.sep)) {
    const file = scenario.endsWith('.json') ? scenario : `${scenario}.json`;
    candidates.push(
      path.join(cwd, 'examples', 'scenarios', file),
      path.join(packageRoot(), 'examples', 'scenarios', file),
    );
  }
  const found = candidates.find((c) => fs.existsSync(c) && fs.statSync(c).isFile());
  if (!found)
    throw new UsageError(
      `no scenario "${scenario}": give a JSON file path or a name under examples/scenarios/ (${listScenarios().join(', ') || 'none found'})`,
    );
  return found;
}

/** Names of the scenarios shipped under examples/scenarios/. */
export function listScenarios(): string[] {
  const dir = path.join(packageRoot(), 'examples', 'scenarios');
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => f.slice(0, -5))
    .sort();
}

/** Reads a scenario's `{ goal, domain, model }`; `goal` overrides the file's. Bad JSON is a usage error. */
export function loadScenario(scenario: string, goal?: string): Record<string, unknown> {
  const file = resolveScenario(scenario);
  let body: unknown;
  try {
    body = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new UsageError(`scenario ${file} is not valid JSON: ${(err as Error).message}`);
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw new UsageError(`scenario ${file} must hold a JSON object { goal, domain, model }`);
  return goal === undefined ? (body as Record<string, unknown>) : { ...(body as Record<string, unknown>), goal };
}
