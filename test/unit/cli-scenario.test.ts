import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { UsageError } from '../../src/cli/errors';
import { loadScenario, resolveScenario } from '../../src/cli/scenario';

let dir: string;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-scenario-'));
  fs.mkdirSync(path.join(dir, 'examples', 'scenarios'), { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'examples', 'scenarios', 'trip.json'),
    JSON.stringify({ goal: 'book Busan', domain: 'trip', model: { kind: 'scripted', turns: [] } }),
  );
  fs.writeFileSync(path.join(dir, 'broken.json'), '{nope');
});

describe('scenario resolution', () => {
  it('finds a scenario by name under examples/scenarios and by path', () => {
    expect(resolveScenario('trip', dir)).toBe(path.join(dir, 'examples', 'scenarios', 'trip.json'));
    expect(resolveScenario('examples/scenarios/trip.json', dir)).toBe(
      path.join(dir, 'examples', 'scenarios', 'trip.json'),
    );
  });

  it('is a usage error when nothing matches', () => {
    expect(() => resolveScenario('no-such-scenario', dir)).toThrow(UsageError);
  });

  it("replaces the file's goal with --goal and refuses bad JSON", () => {
    const file = path.join(dir, 'examples', 'scenarios', 'trip.json');
    expect(loadScenario(file, 'book Jeju')).toMatchObject({ goal: 'book Jeju', domain: 'trip' });
    expect(() => loadScenario(path.join(dir, 'broken.json'))).toThrow(/not valid JSON/);
  });
});
