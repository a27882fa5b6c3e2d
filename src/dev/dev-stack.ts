import fs from 'node:fs';
import path from 'node:path';
import { loadConfig, type GateConfig } from '../config';
import { createGateWorker, type GateWorker } from '../worker/create-gate-worker';
import { startApiServer } from '../api/server';
import { configuredDomains } from '../domain/configured';
import { configuredInterceptors } from '../worker/configured-interceptors';
import type { DomainSource } from '../domain/types';
import { ensureSearchAttributes } from '../worker/search-attributes';
import { startDevServer, type DevServer } from './temporal-cli';
import { installWorkerRuntime } from '../worker/runtime';
import { startTracing } from '../telemetry/tracing';
import { devSigningKeyFiles, generateSigningKey, SigningKeys } from '../evidence/signing-keys';

/** A running local stack: dev server (unless TEMPORAL_ADDRESS), worker and HTTP API. */
export interface DevStack {
  apiUrl: string;
  uiUrl?: string;
  temporalAddress: string;
  stop(): Promise<void>;
}

/**
 * Starts the embedded Temporal dev server on a SQLite file under GATE_DATA_DIR (so
 * gates survive a restart), registers the search attributes, then the worker and the
 * API. `log` receives the progress lines.
 */
export async function startDevStack(
  cfg: GateConfig = loadConfig(),
  log: (line: string) => void = (l) => console.log(l),
  domains: readonly DomainSource[] = configuredDomains(),
): Promise<DevStack> {
  fs.mkdirSync(cfg.dataDir, { recursive: true });
  cfg = withDevSigningKey(cfg, log);
  // The worker's own state-change chatter stays out of the console unless GATE_LOG_LEVEL asks for it.
  installWorkerRuntime({ metricsAddress: cfg.workerMetricsAddress, logLevel: process.env.GATE_LOG_LEVEL });
  startTracing('approval-gate'); // one process: API, worker, workflows and activities in one service
  let server: DevServer | undefined;
  let address = cfg.temporalAddress;
  if (!address) {
    log(
      `temporal: starting dev server on 127.0.0.1:${cfg.temporalPort} (state in ${path.join(cfg.dataDir, 'temporal.db')})`,
    );
    server = await startDevServer({
      port: cfg.temporalPort,
      uiPort: cfg.temporalUiPort,
      dbFile: path.join(cfg.dataDir, 'temporal.db'),
      logFile: path.join(cfg.dataDir, 'temporal.log'),
      namespace: cfg.namespace,
    });
    address = server.address;
  }
  await ensureSearchAttributes(address, cfg.namespace);
  const withAddress: GateConfig = { ...cfg, temporalAddress: address };
  let worker: GateWorker | undefined;
  try {
    worker = await createGateWorker({ ...withAddress, domains, interceptors: configuredInterceptors() });
    const running = worker.run();
    running.catch((err) => log(`worker stopped: ${String(err)}`));
    // One process: the API shares the worker's connection (its creates start eagerly on it with GATE_EAGER_START).
    const api = await startApiServer(withAddress, { domains, connection: worker.connection });
    const uiUrl = server?.uiUrl;
    return {
      apiUrl: api.url,
      uiUrl,
      temporalAddress: address,
      async stop() {
        await api.close();
        await worker?.shutdown();
        await server?.stop();
      },
    };
  } catch (err) {
    await worker?.shutdown().catch(() => undefined);
    await server?.stop();
    throw err;
  }
}

/**
 * GATE_SIGNING_KEY_FILE unset: the data dir's own key (made on the first start, kept
 * after), with a retired-keys directory beside it, so evidence exports work out of the box.
 */
function withDevSigningKey(cfg: GateConfig, log: (line: string) => void): GateConfig {
  if (cfg.signingKeyFile) return cfg;
  const dev = devSigningKeyFiles(cfg.dataDir);
  if (!fs.existsSync(dev.keyFile)) generateSigningKey(dev.keyFile);
  const keyid = SigningKeys.load({ keyFile: dev.keyFile }).keyid;
  log(`evidence: signing bundles with key ${keyid} (${dev.keyFile})`);
  return { ...cfg, signingKeyFile: dev.keyFile, signingKeysRetiredDir: cfg.signingKeysRetiredDir ?? dev.retiredDir };
}

/**
 * `gate dev`: start everything, print the URLs and a ready line, stop cleanly on Ctrl-C.
 * With `json`, stdout carries one JSON object per state (ready, stopped) and progress goes to stderr.
 */
export async function runDev(opts: { json?: boolean } = {}): Promise<void> {
  const stack = await startDevStack(loadConfig(), opts.json ? (l) => console.error(l) : undefined);
  if (opts.json) {
    console.log(
      JSON.stringify({
        status: 'ready',
        api_url: stack.apiUrl,
        reviewer_page: `${stack.apiUrl}/`,
        ui_url: stack.uiUrl ?? null,
        temporal_address: stack.temporalAddress,
      }),
    );
  } else {
    console.log(`API:             ${stack.apiUrl}`);
    console.log(`Reviewer page:   ${stack.apiUrl}/`);
    if (stack.uiUrl) console.log(`Temporal Web UI: ${stack.uiUrl}`);
    console.log(`Temporal:        ${stack.temporalAddress}`);
    console.log('ready: approval-gate is running (Ctrl-C to stop)');
  }
  await new Promise<void>((resolve) => {
    const stop = (): void => {
      if (!opts.json) console.log('stopping…');
      stack.stop().then(resolve, (err) => {
        console.error(err);
        resolve();
      });
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  if (opts.json) console.log(JSON.stringify({ status: 'stopped' }));
}
