/* eslint-disable @typescript-eslint/no-require-imports -- lazy loading on purpose; under tsx, import() would stay an ESM import */
import { Command } from 'commander';
import { CheckFailedError } from '../errors';
import { emit, type CliIo } from '../io';
import { withJson } from '../options';

type StackModule = typeof import('../../stack/stack');
type SettingsModule = typeof import('../../stack/settings');

/** Loaded on use: the short commands never load Temporal's worker or pg. */
function load(): { stack: StackModule; settings: SettingsModule } {
  return {
    stack: require('../../stack/stack') as StackModule,
    settings: require('../../stack/settings') as SettingsModule,
  };
}

/**
 * `gate stack up|down|status`: the production layout (docs/production.md) as local
 * processes: PostgreSQL, a real Temporal server, two workers and the API. Progress goes
 * to stderr; stdout carries the result (with --json, the JSON object alone).
 */
export function stackCommand(io: CliIo): Command {
  const cmd = new Command('stack').description(
    'run the production layout locally: PostgreSQL, a Temporal server, two workers and the API',
  );
  withJson(cmd.command('up').description('start the stack (builds the Temporal server on first use)')).action(
    async (opts: { json?: boolean }) => {
      const { stack, settings } = load();
      const info = await stack.stackUp(settings.stackSettings(), (l) => io.err(l));
      emit(io, opts.json, info, () =>
        [
          `API:              ${info.api_url}`,
          `Temporal:         ${info.temporal_address}`,
          `Database:         ${info.database_url}`,
          `pids:             postgres ${info.pids.postgres}, temporal ${info.pids.temporal}, workers ${info.pids.workers.join(' ')}, api ${info.pids.api}`,
          `ready: use it with GATE_DATABASE_URL=${info.database_url} TEMPORAL_ADDRESS=${info.temporal_address} GATE_API_URL=${info.api_url}`,
        ].join('\n'),
      );
    },
  );
  withJson(cmd.command('down').description('stop every process of the stack; its data stays for the next up')).action(
    async (opts: { json?: boolean }) => {
      const { stack, settings } = load();
      const stopped = await stack.stackDown(settings.stackSettings(), (l) => io.err(l));
      emit(io, opts.json, { stopped }, () =>
        stopped.length ? `stopped: ${stopped.join(', ')}` : 'nothing was running',
      );
    },
  );
  withJson(cmd.command('status').description('which processes of the stack run; exit 1 unless all do')).action(
    async (opts: { json?: boolean }) => {
      const { stack, settings } = load();
      const st = await stack.stackStatus(settings.stackSettings());
      emit(io, opts.json, st, () =>
        st.processes.length === 0
          ? 'no stack has been started here (gate stack up)'
          : [
              ...st.processes.map(
                (p) => `${p.role.padEnd(10)} pid ${String(p.pid).padEnd(8)} ${p.alive ? 'running' : 'stopped'}`,
              ),
              `postgres answers: ${st.postgres_answers ? 'yes' : 'no'}; API answers: ${st.api_answers ? 'yes' : 'no'}`,
            ].join('\n'),
      );
      if (!st.running) throw new CheckFailedError('the stack is not fully running');
    },
  );
  return cmd;
}
