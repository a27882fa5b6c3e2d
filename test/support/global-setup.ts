import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { workflowBundlerOptions } from '../../src/worker/bundle-options';
import { startDevServer, type DevServer } from '../../src/dev/temporal-cli';
import { freePort } from './ports';

declare global {
  var __GATE_DEV_SERVER__: DevServer | undefined;
}

/**
 * Starts one real Temporal dev server (in memory, headless) for the suite unless
 * TEMPORAL_ADDRESS points at one, and bundles the workflow code once for every worker.
 */
export default async function globalSetup(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gate-test-'));
  process.env.GATE_TEST_TMP = dir;
  if (!process.env.TEMPORAL_ADDRESS) {
    const port = await freePort();
    const server = await startDevServer({ port, headless: true, logFile: path.join(dir, 'temporal.log') });
    globalThis.__GATE_DEV_SERVER__ = server;
    process.env.TEMPORAL_ADDRESS = server.address;
  }
  const { code } = await bundleWorkflowCode({
    workflowsPath: require.resolve('../../src/workflow/bundle-entry'),
    ...workflowBundlerOptions(),
    logger: quietLogger(),
  });
  const bundlePath = path.join(dir, 'workflow-bundle.js');
  fs.writeFileSync(bundlePath, code);
  process.env.GATE_TEST_WORKFLOW_BUNDLE = bundlePath;
}

function quietLogger() {
  const noop = (): void => undefined;
  return {
    log: noop,
    trace: noop,
    debug: noop,
    info: noop,
    warn: (m: string) => console.warn(m),
    error: (m: string) => console.error(m),
  };
}
