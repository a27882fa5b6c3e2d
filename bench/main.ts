// `npm run bench`: the gate against bare Temporal baselines measured in the same run,
// each figure with its target and PASS/FAIL (bench/README.md). Exit 0 all PASS, 1 a
// FAIL, 2 an error (a malformed knob, a server that would not start, a section that threw).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { buildBundles } from './bundles';
import { stopAllChildren, stopChildrenOnSignal } from './children';
import { BenchUsageError, loadBenchConfig, type Section } from './config';
import { progress, type BenchContext } from './context';
import { burstSection } from './burst';
import { createSection } from './create';
import { header } from './machine';
import { overheadSection } from './overhead';
import { pendingSection } from './pending';
import { policySection } from './policy';
import { Report } from './report';
import { openServer, type BenchServer } from './temporal-server';
import { toolSection } from './tool-path';

const SECTION_RUNNERS: Record<Section, (ctx: BenchContext) => Promise<void>> = {
  overhead: overheadSection,
  tool: toolSection,
  create: createSection,
  policy: policySection,
  pending: pendingSection,
  burst: burstSection,
};

async function run(): Promise<number> {
  const cfg = loadBenchConfig();
  // Quiet: the SDK's own chatter and the native core's warnings would bury the figures.
  Runtime.install({
    logger: new DefaultLogger('ERROR'),
    telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' } } },
  });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gate-bench-'));
  const report = new Report();
  let server: BenchServer | undefined;
  let connection: Connection | undefined;
  stopChildrenOnSignal(async () => {
    if (!cfg.keepDir) fs.rmSync(dir, { recursive: true, force: true });
  });
  try {
    progress(cfg.temporalAddress ? `connecting to ${cfg.temporalAddress}` : 'starting the Temporal dev server');
    server = await openServer(cfg, dir);
    header(cfg, server.description).forEach((l) => report.line(l));
    progress('bundling the gate and baseline workflows');
    const bundles = await buildBundles(dir, cfg.bareStacks);
    // createGateWorker (src/worker/create-gate-worker.ts) takes its bundle from process.env, not from its config.
    process.env.GATE_WORKFLOW_BUNDLE = bundles.gate;
    connection = await Connection.connect({ address: server.address });
    const ctx: BenchContext = {
      cfg,
      server,
      client: new Client({ connection, namespace: cfg.namespace }),
      bundles,
      report,
      dir,
    };
    for (const section of cfg.sections) {
      progress(`section ${section}`);
      const t0 = Date.now();
      try {
        server.check();
        await SECTION_RUNNERS[section](ctx);
      } catch (err) {
        report.error(section, err);
      }
      progress(`section ${section} took ${((Date.now() - t0) / 1000).toFixed(0)} s`);
      report.line('');
    }
    return report.summary();
  } finally {
    await connection?.close().catch(() => undefined);
    await server?.stop().catch(() => undefined);
    await stopAllChildren();
    if (cfg.keepDir) console.error(`bench: files kept in ${dir}`);
    else fs.rmSync(dir, { recursive: true, force: true });
  }
}

run()
  .then((code) => process.exit(code))
  .catch((err) => {
    console.error(err instanceof BenchUsageError ? `bench: ${err.message}` : err);
    process.exit(2);
  });
