import fs from 'node:fs';
import path from 'node:path';
import { NativeConnection, Worker, type WorkerInterceptors, type WorkerOptions } from '@temporalio/worker';
import { loadConfig, temporalAddressOf, type GateConfig } from '../config';
import { createActivities } from './activities';
import type { DomainSource } from '../domain/types';
import type { Model, ModelSpec } from '../common/model-spec';
import { configuredDomains } from '../domain/configured';
import { configuredInterceptors } from './configured-interceptors';
import { loadPolicyFile } from '../policy/load-file';
import { ensureSearchAttributes } from './search-attributes';
import { SEARCH_ATTRIBUTE_NAMES } from '../common/search-attributes';
import { openDb, type Db } from '../store/db';
import { workflowBundlerOptions } from './bundle-options';
import { installWorkerRuntime } from './runtime';
import { activeTracing, startTracing } from '../telemetry/tracing';
import { OpenTelemetryPlugin } from '@temporalio/interceptors-opentelemetry';

/** Everything a worker process holds open. */
export interface GateWorker {
  worker: Worker;
  db: Db;
  /** The worker's connection; an API in the same process may share it, and start gates eagerly on it (see StartApiOptions). */
  connection: NativeConnection;
  /** Runs until shutdown() or a fatal error. */
  run(): Promise<void>;
  /** Stops polling, lets running tasks finish, closes connections. */
  shutdown(): Promise<void>;
}

/** The SQLite file that holds audit events, key hashes and the domain store when no GATE_DATABASE_URL is set. */
export function gateDbFile(cfg: Pick<GateConfig, 'dataDir'>): string {
  return path.join(cfg.dataDir, 'gate.db');
}

/**
 * Prebuilt workflow bundle (production) if present, else bundle from source at start. With
 * tracing on, always from source: the OpenTelemetry workflow interceptors must be inside the
 * bundle, and the prebuilt one is built without them (no cost when tracing is off). The same
 * with stack traces on (GATE_WORKFLOW_STACK_TRACES): the prebuilt bundle captures none. And
 * with workflow interceptor modules of the user's, which the SDK ignores beside a prebuilt bundle.
 */
function workflowSource(
  fromSource: boolean,
  stackTraces: boolean,
): Pick<WorkerOptions, 'workflowBundle' | 'workflowsPath' | 'bundlerOptions'> {
  // bundlerOptions only with workflowsPath: beside a prebuilt bundle the SDK ignores them with a WARN.
  const fromPath = {
    workflowsPath: require.resolve('../workflow/bundle-entry'),
    bundlerOptions: workflowBundlerOptions({ stackTraces }),
  };
  if (fromSource) return fromPath;
  const bundle = process.env.GATE_WORKFLOW_BUNDLE ?? path.resolve(__dirname, '..', 'workflow-bundle.js');
  return fs.existsSync(bundle) ? { workflowBundle: { codePath: bundle } } : fromPath;
}

/**
 * Options of a standalone gate worker: the domains it serves, and any setting of
 * GateConfig (each defaults to its environment variable, see `loadConfig`).
 */
export interface GateWorkerOptions extends Partial<GateConfig> {
  /** Your DomainAdapters (or factories over the gate's store); agent runs may use these domains only. */
  domains: readonly DomainSource[];
  /** Builds the model of an agent run from its spec; default: scripted, OpenAI or Anthropic (src/worker/models). */
  createModel?: (spec: ModelSpec) => Model;
  /**
   * Register the gate's search attributes (GateStatus, GateAction, ...) on the namespace when
   * it lacks them, so its gates can be filtered in the Web UI; default true. A worker whose
   * credentials may not register them still starts, and says which to register by hand.
   */
  registerSearchAttributes?: boolean;
  /**
   * Your worker interceptors (tracing, auditing, ...), as the SDK's `WorkerOptions.interceptors`;
   * `gate worker` and `gate dev` take them from GATE_WORKER_INTERCEPTORS_MODULE. Workflow
   * interceptor modules make the worker bundle its workflows at start: the prebuilt bundle has none.
   */
  interceptors?: WorkerInterceptors;
}

/**
 * Opens the stores, migrates them, builds the domains and a worker that hosts the gate
 * and agent-run workflows on the task queue (`GATE_TASK_QUEUE` unless given). Throws
 * when Temporal is unreachable or a domain name is registered twice.
 */
export async function createGateWorker(opts: GateWorkerOptions): Promise<GateWorker> {
  const { domains, createModel, registerSearchAttributes = true, interceptors, ...overrides } = opts;
  const cfg: GateConfig = { ...loadConfig(), ...definedOnly(overrides) };
  // Before anything opens: a bad rule file stops the worker with every problem named, as it stops the API.
  const policy = cfg.policyFile ? loadPolicyFile(cfg.policyFile) : undefined;
  // A fresh cluster lacks the gate's search attributes; add them once (a no-op call when present).
  if (registerSearchAttributes)
    await ensureSearchAttributes(temporalAddressOf(cfg), cfg.namespace).catch((err) =>
      console.error(
        `worker: could not register search attributes (${String(err)}); register ${Object.values(SEARCH_ATTRIBUTE_NAMES).join(', ')} as Keyword`,
      ),
    );
  const db = openDb({ databaseUrl: cfg.databaseUrl, sqliteFile: gateDbFile(cfg) });
  const { activities } = await createActivities({
    db,
    domains,
    createModel,
    webhookUrls: cfg.webhookUrls,
    webhookSecret: cfg.webhookSecret,
    notify: cfg.notify,
    policy,
  });
  const connection = await NativeConnection.connect({ address: temporalAddressOf(cfg) });
  const tracing = activeTracing();
  const worker = await Worker.create({
    connection,
    namespace: cfg.namespace,
    taskQueue: cfg.taskQueue,
    ...workflowSource(
      !!tracing || cfg.workflowStackTraces || !!interceptors?.workflowModules?.length,
      cfg.workflowStackTraces,
    ),
    ...(interceptors ? { interceptors } : {}),
    // Client, workflow and activity spans, the workflow's exported through a sink (not on replay).
    ...(tracing
      ? { plugins: [new OpenTelemetryPlugin({ resource: tracing.resource, spanProcessor: tracing.spanProcessor })] }
      : {}),
    maxCachedWorkflows: cfg.workflowCacheSize,
    activities,
  });
  let running: Promise<void> | undefined;
  return {
    worker,
    db,
    connection,
    run() {
      running ??= worker.run().finally(async () => {
        await connection.close();
        await db.close();
      });
      return running;
    },
    async shutdown() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
    },
  };
}

/** The set fields only: `{ taskQueue: undefined }` keeps the configured queue. */
function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** `gate worker`: runs until SIGINT or SIGTERM. */
export async function runWorker(opts: { json?: boolean } = {}): Promise<void> {
  const cfg = loadConfig();
  // Before any connection: the runtime's logger and, with GATE_WORKER_METRICS_ADDRESS, its Prometheus endpoint.
  installWorkerRuntime({ metricsAddress: cfg.workerMetricsAddress, logLevel: process.env.GATE_LOG_LEVEL ?? 'info' });
  const tracing = startTracing('approval-gate-worker'); // off unless OTEL_TRACES_EXPORTER / an OTLP endpoint is set
  const w = await createGateWorker({ ...cfg, domains: configuredDomains(), interceptors: configuredInterceptors() });
  const stop = (): void => void w.shutdown();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  console.error(`worker: polling task queue ${w.worker.options.taskQueue}`);
  if (cfg.workerMetricsAddress)
    console.error(`worker: Prometheus metrics on http://${cfg.workerMetricsAddress}/metrics`);
  if (opts.json)
    console.log(
      JSON.stringify({ status: 'polling', task_queue: w.worker.options.taskQueue, namespace: cfg.namespace }),
    );
  try {
    await w.run();
  } finally {
    await tracing?.shutdown(); // flush the last spans
  }
}

if (require.main === module) {
  runWorker().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
