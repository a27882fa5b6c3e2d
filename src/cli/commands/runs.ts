import { Command } from 'commander';
import { formatRun } from '../format-runs';
import { emit, type CliIo } from '../io';
import { clientFor, withApi, type ApiOptions } from '../options';
import { loadScenario } from '../scenario';

interface StartOptions extends ApiOptions {
  goal?: string;
}

/** `gate run start|show`: agent runs over HTTP (`POST /v1/runs`, `GET /v1/runs/{id}`). */
export function runCommand(io: CliIo): Command {
  const cmd = new Command('run').description('start and inspect agent runs');
  withApi(cmd.command('start').description('start an agent run from a scenario (agent key)').argument('<scenario>', 'name under examples/scenarios/ or a path to a JSON file'))
    .option('--goal <goal>', "replace the scenario's goal")
    .action(async (scenario: string, opts: StartOptions) => {
      const body = loadScenario(scenario, opts.goal);
      const run = await clientFor(opts, 'agent').startRun(body);
      emit(io, opts.json, run, () => `started run ${String(run.run_id ?? '')} (${String(run.status ?? 'running')})\nfollow it with: gate run show ${String(run.run_id ?? '')}`);
    });
  withApi(cmd.command('show').description("show a run's status, conversation and pending approvals").argument('<run-id>', 'run id'))
    .action(async (id: string, opts: ApiOptions) => {
      const run = await clientFor(opts).getRun(id);
      emit(io, opts.json, run, () => formatRun(run));
    });
  return cmd;
}
