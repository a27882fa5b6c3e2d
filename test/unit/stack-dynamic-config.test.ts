import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { BACKLOG_STATS_TTL } from '../../src/dev/temporal-cli';

// The dynamic config of gate stack and docker-compose (deploy/temporal/dynamicconfig.yaml).
const file = path.join(__dirname, '..', '..', 'deploy', 'temporal', 'dynamicconfig.yaml');
const cfg = YAML.parse(fs.readFileSync(file, 'utf8')) as Record<string, { value: unknown; constraints: object }[]>;
const value = (key: string): unknown => {
  const entries = cfg[key];
  expect(entries).toHaveLength(1);
  expect(entries![0]!.constraints).toEqual({});
  return entries![0]!.value;
};

describe('the dynamic config of gate stack', () => {
  it('bounds the history cache by entries: its byte estimate counts about a tenth of the heap a gate holds', () => {
    const entries = value('history.hostLevelCacheMaxSize');
    expect(Number.isInteger(entries)).toBe(true);
    expect(entries).toBeGreaterThanOrEqual(1000);
    expect(entries).toBeLessThanOrEqual(20_000);
    expect(cfg['history.cacheSizeBasedLimit']).toBeUndefined();
  });

  it('refreshes backlog statistics as often as the dev server does, so creates are shed close to GATE_MAX_BACKLOG_S', () => {
    expect(value('matching.TaskQueueInfoByBuildIdTTL')).toBe(BACKLOG_STATS_TTL);
  });

  it("lets reviewers list faster than the frontend's default of 10 visibility calls a second", () => {
    expect(value('frontend.namespaceRPS.visibility')).toBeGreaterThanOrEqual(100);
  });
});
