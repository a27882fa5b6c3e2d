import fs from 'node:fs';
import path from 'node:path';
import { openDb, type Db } from '../../src/store/db';
import { KeyStore } from '../../src/store/key-store';
import { stackSettings } from '../../src/stack/settings';
import { BOUNDARY_DIR_ENV } from './boundaries';
import type { ChaosContext } from './engine';

const ROOT = path.resolve(__dirname, '..', '..');

/**
 * A chaos context on a running stack: `env` is the environment it was started with
 * (GATE_DATA_DIR, ports, and the holds of `boundaryStackEnv`). Creates its own agent and reviewer keys.
 */
export async function chaosContext(
  env: Record<string, string | undefined>,
  info: { api_url: string; database_url: string },
  log: (l: string) => void,
): Promise<{ ctx: ChaosContext; db: Db }> {
  const boundaryDir = env[BOUNDARY_DIR_ENV];
  if (!boundaryDir || env.GATE_WORKER_INTERCEPTORS_MODULE === undefined)
    throw new Error(
      'the stack was started without boundaryStackEnv (test/chaos/boundaries.ts): no boundary can be held',
    );
  const db = openDb({ databaseUrl: info.database_url, sqliteFile: ':memory:' });
  const keys = new KeyStore(db);
  const tag = Date.now().toString(36);
  const agentKey = (await keys.create('agent', `chaos-agent-${tag}`)).key;
  const reviewerKey = (await keys.create('reviewer', `chaos-reviewer-${tag}`)).key;
  const scenario = JSON.parse(fs.readFileSync(path.join(ROOT, 'examples', 'scenarios', 'trip-approve.json'), 'utf8'));
  return {
    db,
    ctx: { s: stackSettings(env), apiUrl: info.api_url, db, boundaryDir, agentKey, reviewerKey, scenario, log },
  };
}
