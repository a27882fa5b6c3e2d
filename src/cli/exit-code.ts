import { CommanderError } from 'commander';
import { ExitCode, UsageError } from './errors';

/**
 * The exit code for an error that ended a command: 0 for commander's help and
 * version displays (they exit 0 by themselves), 2 for usage errors (commander's other
 * parse errors and our own UsageError), 1 for everything else (server refusals,
 * unreachable server, failed checks, crashes).
 */
export function exitCodeFor(err: unknown): ExitCode {
  if (err instanceof CommanderError) return err.exitCode === 0 ? ExitCode.Ok : ExitCode.Usage;
  if (err instanceof UsageError) return ExitCode.Usage;
  return ExitCode.Refused;
}
