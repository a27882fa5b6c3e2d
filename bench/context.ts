// What every section gets: the server, a client, the bundles, a place for files, the report.
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { Bundles } from './bundles';
import type { BenchConfig } from './config';
import type { Report } from './report';
import type { BenchServer } from './temporal-server';

export interface BenchContext {
  cfg: BenchConfig;
  server: BenchServer;
  client: Client;
  bundles: Bundles;
  report: Report;
  /** The run's temp dir. */
  dir: string;
}

/** Progress of long phases: stderr, so stdout holds the figures only. */
export function progress(msg: string): void {
  console.error(`  .. ${msg}`);
}

/** A task queue of its own for one part of the run. */
export function taskQueue(part: string): string {
  return `bench-${part}-${randomUUID().slice(0, 8)}`;
}

/** A fresh GATE_DATA_DIR under the run's temp dir. */
export function dataDir(ctx: BenchContext, part: string): string {
  const d = path.join(ctx.dir, part);
  fs.mkdirSync(d, { recursive: true });
  return d;
}

/**
 * The environment a gate process of this run is configured from (src/config.ts
 * `loadConfig`): this server, a data dir of its own, SQLite stores (GATE_DATABASE_URL
 * removed), no webhooks, and the run's prebuilt workflow bundle.
 */
export function gateEnv(
  ctx: BenchContext,
  dir: string,
  queue: string,
  extra: Record<string, string> = {},
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    TEMPORAL_ADDRESS: ctx.server.address,
    TEMPORAL_NAMESPACE: ctx.cfg.namespace,
    GATE_DATA_DIR: dir,
    GATE_TASK_QUEUE: queue,
    GATE_WEBHOOK_URLS: '',
    GATE_WORKFLOW_BUNDLE: ctx.bundles.gate,
    GATE_HOST: '127.0.0.1',
    ...extra,
  };
  delete env.GATE_DATABASE_URL;
  delete env.GATE_WEBHOOK_SECRET;
  return env;
}
