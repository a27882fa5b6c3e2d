/**
 * Records a release's replay histories (test/replay/README.md):
 *
 *   npx tsx test/replay/record-histories.ts --out test/replay/histories/<version>
 *
 * Every path of the three sets (recorder/gate-paths.ts, run-paths.ts, workflow-paths.ts, with
 * the paths added after 0.1.0 in recorder/judged-*.ts) runs on today's code against a real
 * Temporal dev server: the one TEMPORAL_ADDRESS names (started with the Gate* search
 * attributes), or one started here. The histories go to
 * `<out>/{gate,agent-run,workflow}/`. A release's folder is written once: the recorder
 * refuses an `--out` that exists, and writes nothing there unless every path ended as it must.
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
import { recordGatePaths } from './recorder/gate-paths';
import { recordRunPaths } from './recorder/run-paths';
import { recordWorkflowPaths } from './recorder/workflow-paths';

const USAGE = 'usage: npx tsx test/replay/record-histories.ts --out test/replay/histories/<version>';

/** The `--out` folder: a semver-named folder that does not exist yet. */
function outDir(argv: string[]): string {
  const i = argv.indexOf('--out');
  const out = i >= 0 ? argv[i + 1] : undefined;
  if (!out || argv.length !== 2) throw new Error(USAGE);
  const target = path.resolve(out);
  if (!/^\d+\.\d+\.\d+$/.test(path.basename(target)))
    throw new Error(`${out}: name the folder after the release (e.g. histories/0.2.0). ${USAGE}`);
  if (fs.existsSync(target))
    throw new Error(`${out} exists: a release's histories are recorded once and never re-recorded or edited`);
  return target;
}

async function record(out: string): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  let server: DevServer | undefined;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'gate-record-'));
  let address = process.env.TEMPORAL_ADDRESS;
  if (!address) {
    server = await startDevServer({ port: await freePort(), headless: true, logFile: path.join(tmp, 'temporal.log') });
    address = server.address;
  }
  // Written beside the target and moved there at the end, so a failed recording leaves no release folder.
  const partial = `${out}.partial-${process.pid}`;
  const nativeConnection = await NativeConnection.connect({ address });
  const connection = await Connection.connect({ address });
  try {
    const client = new Client({ connection });
    // The workers run the workflow bundle as a gate worker builds it.
    const { code } = await bundleWorkflowCode({
      workflowsPath: require.resolve('../../src/workflow/bundle-entry'),
      ...workflowBundlerOptions(),
      logger: new DefaultLogger('WARN'),
    });
    const withWorker = async (activities: object, run: (taskQueue: string) => Promise<void>): Promise<void> => {
      const taskQueue = `replay-record-${randomUUID()}`;
      const worker = await Worker.create({
        connection: nativeConnection,
        taskQueue,
        workflowBundle: { code },
        activities,
      });
      await worker.runUntil(() => run(taskQueue));
    };
    await recordGatePaths(client, withWorker, path.join(partial, 'gate'));
    await recordRunPaths(client, withWorker, path.join(partial, 'agent-run'));
    await recordWorkflowPaths(nativeConnection, client, path.join(partial, 'workflow'));
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
  Promise.resolve()
    .then(() => record(outDir(process.argv.slice(2))))
    .catch((err) => {
      console.error(err instanceof Error ? err.message : err);
      process.exit(1);
    });
}
