import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startApiServer, type RunningApi } from '../../src/api/server';
import { loadConfig } from '../../src/config';
import { AuditStore } from '../../src/store/audit-store';
import { openDb, type Db } from '../../src/store/db';
import { freePort } from './ports';
import { storeActivities } from './gate-fixtures';
import { startTestWorker, type RunningWorker } from './temporal';
import { tripDomain } from '../../examples/trip';

/** A data dir, a worker (audit into the store, external gates only) and the real API on a free port. */
export interface ApiStack {
  dataDir: string;
  db: Db;
  worker: RunningWorker;
  api: RunningApi;
  /** The environment the API was configured from, for spawning the CLI against it. */
  env: NodeJS.ProcessEnv;
  stop(): Promise<void>;
}

export async function startApiStack(prefix: string): Promise<ApiStack> {
  const dataDir = fs.mkdtempSync(path.join(process.env.GATE_TEST_TMP ?? os.tmpdir(), `${prefix}-`));
  const db = openDb({ sqliteFile: path.join(dataDir, 'gate.db') });
  const audit = new AuditStore(db);
  await audit.migrate();
  const worker = await startTestWorker({
    ...storeActivities(audit),
    recheckSnapshot: async () => ({ ok: true }),
    executeTool: async () => ({ content: 'done' }),
    recheckAndExecuteTool: async () => ({ ran: true, output: { content: 'done' } }),
    reviseToolCall: async () => ({ ok: false, issues: [{ path: '', message: 'not used here' }] }),
  });
  process.env.GATE_LOG_LEVEL = 'silent'; // the API's request log would drown the test output
  const env = {
    ...process.env,
    GATE_DATA_DIR: dataDir,
    GATE_TASK_QUEUE: worker.taskQueue,
    GATE_PORT: String(await freePort()),
    GATE_WEBHOOK_URLS: '',
  };
  const api = await startApiServer(loadConfig(env), { domains: [tripDomain] });
  return {
    dataDir,
    db,
    worker,
    api,
    env,
    async stop() {
      await api.close();
      await worker.stop();
      await db.close();
    },
  };
}
