import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { clusterDir, pgDir, postgresAnswers, postgresPid, startPostgres, stopPostgres } from '../../src/stack/postgres';
import { skipPostgres } from '../support/postgres';
import { freePort } from '../support/ports';

/**
 * `gate stack up` as root with GATE_DATA_DIR=$(mktemp -d): the data dir is mode 700, so
 * PostgreSQL's account cannot pass through it. The stack's PostgreSQL must start anyway,
 * and `down` and the next `up` must find the same cluster. Only root meets this.
 */
const asRoot = process.getuid?.() === 0;

(asRoot && !skipPostgres ? describe : describe.skip)('the stack PostgreSQL under a private data dir, as root', () => {
  let dataDir: string;
  let s: { dir: string; pgPort: number; pgSettings: Record<string, string> };
  const logged: string[] = [];
  let cluster: string | undefined;

  beforeAll(async () => {
    // As `mktemp -d` makes it: in the shared temp dir (the suite's own GATE_TEST_TMP is private too).
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gate-private-'));
    fs.chmodSync(dataDir, 0o700);
    // A small server: the stack's production buffers are not what this test is about.
    s = { dir: path.join(dataDir, 'stack'), pgPort: await freePort(), pgSettings: { shared_buffers: '16MB' } };
  });
  afterAll(() => {
    try {
      stopPostgres(s, 'immediate');
    } finally {
      if (cluster) fs.rmSync(cluster, { recursive: true, force: true });
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);

  it('starts, stops and starts again on the same cluster, leaving the data dir private', async () => {
    const pid = startPostgres(s, (l) => logged.push(l));
    cluster = clusterDir(s);
    expect(postgresPid(s)).toBe(pid);
    expect(await postgresAnswers(s)).toBe(true);
    // The cluster lives where PostgreSQL's account reaches it, linked from the data dir.
    expect(fs.lstatSync(pgDir(s)).isSymbolicLink()).toBe(true);
    expect(cluster.startsWith(fs.realpathSync(dataDir))).toBe(false);
    expect(logged.join('\n')).toContain(`cannot pass through ${fs.realpathSync(dataDir)} (mode 700`);
    expect(fs.statSync(dataDir).mode & 0o777).toBe(0o700);

    stopPostgres(s);
    expect(postgresPid(s)).toBeUndefined();
    expect(await postgresAnswers(s)).toBe(false);

    logged.length = 0;
    startPostgres(s, (l) => logged.push(l));
    expect(clusterDir(s)).toBe(cluster); // the same data, found through the link
    expect(logged).toEqual([]);
    expect(await postgresAnswers(s)).toBe(true);
    stopPostgres(s);
  }, 180_000);
});
