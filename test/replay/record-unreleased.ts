/**
 * Records the histories of workflow changes made since the last release (test/replay/README.md):
 *
 *   npx tsx test/replay/record-unreleased.ts
 *
 * Writes histories/unreleased/gate/ afresh (unreleased code may still change its patched
 * branches in place, so this folder may be recorded again until the release is cut, when it
 * becomes histories/<version>/). Runs on today's code against TEMPORAL_ADDRESS or a dev server
 * started here.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { startDevServer, type DevServer } from '../../src/dev/temporal-cli';
import { workflowBundlerOptions } from '../../src/worker/bundle-options';
import { freePort } from '../support/ports';
import { HISTORIES_DIR } from './history-codec';
import { recordNoticePaths } from './recorder/notice-paths';

async function record(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const out = path.join(HISTORIES_DIR, 'unreleased', 'gate');
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'gate-record-'));
  let server: DevServer | undefined;
  let address = process.env.TEMPORAL_ADDRESS;
  if (!address) {
    server = await startDevServer({ port: await freePort(), headless: true, logFile: path.join(tmp, 'temporal.log') });
    address = server.address;
  }
  const partial = `${out}.partial-${process.pid}`;
  const nativeConnection = await NativeConnection.connect({ address });
  const connection = await Connection.connect({ address });
  try {
    const client = new Client({ connection });
    const { code } = await bundleWorkflowCode({
      workflowsPath: require.resolve('../../src/workflow/bundle-entry'),
      ...workflowBundlerOptions(),
      logger: new DefaultLogger('WARN'),
    });
    await recordNoticePaths(
      client,
      async (activities, run) => {
        const taskQueue = `replay-record-${randomUUID()}`;
        const worker = await Worker.create({
          connection: nativeConnection,
          taskQueue,
          workflowBundle: { code },
          activities,
        });
        await worker.runUntil(() => run(taskQueue));
      },
      partial,
    );
    fs.rmSync(out, { recursive: true, force: true });
    fs.renameSync(partial, out);
    console.log(`recorded ${path.relative(process.cwd(), out)}`);
  } finally {
    fs.rmSync(partial, { recursive: true, force: true });
    await connection.close();
    await nativeConnection.close();
    await server?.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

if (require.main === module) {
  record().catch((err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
