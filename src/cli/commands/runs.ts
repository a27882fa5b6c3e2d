import { Command } from 'commander';
import { auditEvents, formatAuditTable } from '../format-audit';
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
  withApi(
    cmd
      .command('start')
      .description('start an agent run from a scenario (agent key)')
      .argument('<scenario>', 'name under examples/scenarios/ or a path to a JSON file'),
  )
    .option('--goal <goal>', "replace the scenario's goal")
    .action(async (scenario: string, opts: StartOptions) => {
      const body = loadScenario(scenario, opts.goal);
      const run = await clientFor(opts, 'agent').startRun(body);
      emit(
        io,
        opts.json,
        run,
        () =>
          `started run ${String(run.run_id ?? '')} (${String(run.status ?? 'running')})\nfollow it with: gate run show ${String(run.run_id ?? '')}`,
      );
    });
  withApi(
    cmd
      .command('show')
      .description("show a run's status, conversation and pending approvals")
      .argument('<run-id>', 'run id'),
  ).action(async (id: string, opts: ApiOptions) => {
    const run = await clientFor(opts).getRun(id);
    emit(io, opts.json, run, () => formatRun(run));
  });
  withApi(
    cmd
      .command('audit')
      .description("show a run's own audit trail (tool results, policy blocks)")
      .argument('<run-id>', 'run id'),
  ).action(async (id: string, opts: ApiOptions) => {
    const body = await clientFor(opts).runAudit(id);
    emit(
      io,
      opts.json,
      body,
      () =>
        `${formatAuditTable(auditEvents(body))}\n\nchain ${(body as { verified?: boolean }).verified ? 'intact' : 'BROKEN'}`,
    );
  });
  withApi(
    cmd
      .command('cancel')
      .description("cancel a run; its pending approvals end cancelled (the run's agent key)")
      .argument('<run-id>', 'run id'),
  ).action(async (id: string, opts: ApiOptions) => {
    const body = await clientFor(opts, 'agent').cancelRun(id);
    emit(io, opts.json, body, () => `cancelling run ${id}`);
  });
  withApi(
    cmd
      .command('respond')
      .description('answer a pending interaction of a run (reviewer key)')
      .argument('<run-id>', 'run id')
      .argument('<interaction-id>', 'interaction id (see gate run show)')
      .requiredOption('--value <value>', 'the answer: text, an option, accept|reject, or true|false for CONFIRM')
      .option('--comment <text>', 'a comment beside the answer'),
  ).action(async (id: string, iid: string, opts: ApiOptions & { value: string; comment?: string }) => {
    // CONFIRM takes a boolean: "true"/"false" are sent as booleans, everything else as text.
    const value = opts.value === 'true' ? true : opts.value === 'false' ? false : opts.value;
    const run = await clientFor(opts, 'reviewer').respond(id, iid, {
      value,
      ...(opts.comment ? { comment: opts.comment } : {}),
    });
    emit(io, opts.json, run, () => formatRun(run));
  });
  return cmd;
}
