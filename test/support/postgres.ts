import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDb, type Db } from '../../src/store/db';

const scripts = path.resolve(__dirname, '../../scripts');

/** True when PostgreSQL tests may be skipped: GATE_SKIP_PG=1 and no GATE_TEST_PG_URL. */
export const skipPostgres = process.env.GATE_SKIP_PG === '1' && !process.env.GATE_TEST_PG_URL;

/**
 * A real PostgreSQL for a test file: GATE_TEST_PG_URL when set, otherwise a throwaway
 * cluster from scripts/start-postgres.sh. Missing binaries fail loudly (a silent skip
 * would hide that the production store is untested) unless GATE_SKIP_PG=1.
 */
export function startPostgres(): { url: string; stop(): void } {
  if (process.env.GATE_TEST_PG_URL) return { url: process.env.GATE_TEST_PG_URL, stop: () => undefined };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gate-pg-'));
  const r = spawnSync('bash', [path.join(scripts, 'start-postgres.sh'), dir], { encoding: 'utf8', timeout: 90_000 });
  if (r.status === 3)
    throw new Error(
      `No PostgreSQL binaries found, so the PostgreSQL store cannot be tested. Install postgresql, set GATE_TEST_PG_URL, or set GATE_SKIP_PG=1 to skip.\n${r.stderr}`,
    );
  const url = r.stdout.trim().split('\n').pop() ?? '';
  if (r.status !== 0 || !url.startsWith('postgresql://'))
    throw new Error(`start-postgres.sh failed (status ${r.status}):\n${r.stderr}${r.stdout}`);
  return {
    url,
    stop() {
      spawnSync('bash', [path.join(scripts, 'stop-postgres.sh'), dir], { encoding: 'utf8', timeout: 60_000 });
      // A start that failed before initdb leaves an empty dir, which stop-postgres.sh will not touch.
      if (!fs.existsSync(path.join(dir, 'data', 'PG_VERSION'))) fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A store a suite runs on: opened in its beforeAll, stopped in its afterAll. */
export interface SuiteStore {
  db: Db;
  stop(): Promise<void>;
}

/** Declares `suite` on an in-memory SQLite store and, unless PostgreSQL is skipped, on a throwaway PostgreSQL. */
export function onEveryStore(suite: (name: string, open: () => Promise<SuiteStore>) => void): void {
  suite('SQLite', async () => {
    const db = openDb({ sqliteFile: ':memory:' });
    return { db, stop: () => db.close() };
  });
  if (!skipPostgres)
    suite('PostgreSQL', async () => {
      const pg = startPostgres();
      const db = openDb({ databaseUrl: pg.url, sqliteFile: ':memory:' });
      return {
        db,
        async stop() {
          await db.close();
          pg.stop();
        },
      };
    });
}
