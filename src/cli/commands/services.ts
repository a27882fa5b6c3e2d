/* eslint-disable @typescript-eslint/no-require-imports -- lazy loading on purpose; under tsx, import() would stay an ESM import */
import { Command } from 'commander';
import { loadConfig } from '../../config';
import { emit, type CliIo } from '../io';
import { withJson } from '../options';

/** Resolves on the first SIGINT or SIGTERM. */
export function untilSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const on = (s: NodeJS.Signals): void => {
      process.off('SIGINT', on);
      process.off('SIGTERM', on);
      resolve(s);
    };
    process.on('SIGINT', on);
    process.on('SIGTERM', on);
  });
}

/**
 * `gate dev`, `gate worker`, `gate api`, `gate mcp`: the long-running parts. Each loads
 * its module lazily with `require` (not `import()`, which tsx leaves as an ESM import),
 * so the short commands never pull in Temporal or fastify.
 */
export function serviceCommands(io: CliIo): Command[] {
  const dev = withJson(
    new Command('dev').description('start an embedded Temporal dev server, the worker and the HTTP API'),
  ).action(async (opts: { json?: boolean }) => {
    const { runDev } = require('../../dev/dev-stack') as typeof import('../../dev/dev-stack');
    await runDev({ json: opts.json });
  });
  const worker = withJson(new Command('worker').description('run the worker against TEMPORAL_ADDRESS')).action(
    async (opts: { json?: boolean }) => {
      const { runWorker } =
        require('../../worker/create-gate-worker') as typeof import('../../worker/create-gate-worker');
      await runWorker({ json: opts.json });
    },
  );
  const api = withJson(new Command('api').description('run the HTTP API against TEMPORAL_ADDRESS')).action(
    async (opts: { json?: boolean }) => {
      const { startApiServer } = require('../../api/server') as typeof import('../../api/server');
      const { startTracing } = require('../../telemetry/tracing') as typeof import('../../telemetry/tracing');
      const tracing = startTracing('approval-gate-api'); // off unless OTEL_TRACES_EXPORTER / an OTLP endpoint is set
      const { configuredDomains } = require('../../domain/configured') as typeof import('../../domain/configured');
      const server = await startApiServer(loadConfig(), { domains: configuredDomains() });
      emit(io, opts.json, { url: server.url }, () => `api: listening on ${server.url}`);
      await untilSignal();
      await server.close();
      await tracing?.shutdown();
    },
  );
  // stdout is the MCP protocol channel, already JSON-RPC: --json is accepted and changes nothing.
  const mcp = withJson(
    new Command('mcp').description('serve the MCP tools request_action_approval and check_approval_status on stdio'),
  ).action(async () => {
    const { runMcpServer } = require('../../mcp/server') as typeof import('../../mcp/server');
    await runMcpServer();
  });
  return [dev, worker, api, mcp];
}
