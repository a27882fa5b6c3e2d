import { Command } from 'commander';
import { approvalsCommand } from './commands/approvals';
import { auditCommand } from './commands/audit';
import { decisionCommands } from './commands/decisions';
import { evidenceCommand } from './commands/evidence';
import { keysCommand } from './commands/keys';
import { grantsCommand } from './commands/grants';
import { policyCommand } from './commands/policy';
import { runCommand } from './commands/runs';
import { serviceCommands } from './commands/services';
import { stackCommand } from './commands/stack';
import { exitCodeFor } from './exit-code';
import { describeError, processIo, type CliIo } from './io';
import { packageVersion } from '../package-version';

/**
 * The `gate` command tree. Commander never exits the process itself (exitOverride):
 * its parse errors are thrown, so `main` maps them to exit code 2.
 */
export function buildProgram(io: CliIo = processIo): Command {
  const program = new Command('gate')
    .description('durable human-in-the-loop approval gates for LLM agent tool calls, on Temporal')
    .version(packageVersion(), '-V, --version', 'print the version of approval-gate');
  const subcommands = [
    ...serviceCommands(io),
    approvalsCommand(io),
    ...decisionCommands(io),
    auditCommand(io),
    evidenceCommand(io),
    keysCommand(io),
    policyCommand(io),
    grantsCommand(io),
    runCommand(io),
    stackCommand(io),
  ];
  for (const cmd of subcommands) program.addCommand(cmd);
  configureTree(program, io);
  return program;
}

/** Commands built with `new Command` inherit nothing, so every node gets the settings explicitly. */
function configureTree(cmd: Command, io: CliIo): void {
  cmd
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.out(s), writeErr: (s) => io.err(s) })
    .showHelpAfterError(`(run \`${commandPath(cmd)} --help\` for usage)`);
  for (const sub of cmd.commands) configureTree(sub, io);
}

function commandPath(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/** Runs `gate` with `argv` (without node and script) and resolves to the exit code; never throws. */
export async function main(argv: readonly string[], io: CliIo = processIo): Promise<number> {
  try {
    await buildProgram(io).parseAsync([...argv], { from: 'user' });
    return 0;
  } catch (err) {
    const message = describeError(err);
    if (message) io.err(message);
    return exitCodeFor(err);
  }
}

/** Process entry point (bin/gate.js): runs `main` on process.argv and exits with its code once output is flushed. */
export function run(): void {
  void main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
    // Exit explicitly: idle HTTP keep-alive sockets must not hold a short command open.
    process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
  });
}
