import { type Command, InvalidArgumentError, Option } from 'commander';
import { defaultApiUrl, GateHttpClient } from './http';
import { UsageError } from './errors';

/** Options every API-talking command accepts. */
export interface ApiOptions {
  json?: boolean;
  key?: string;
  apiUrl?: string;
}

/** Adds `--json`: every command takes it (docs/cli.md). */
export function withJson(cmd: Command): Command {
  return cmd.option('--json', 'print machine-readable JSON');
}

/** Adds `--json`, `--key` and `--api-url` to a command that calls the HTTP API. */
export function withApi(cmd: Command): Command {
  return withJson(cmd)
    .addOption(new Option('--key <key>', 'API key (agent or reviewer)').env('GATE_API_KEY'))
    .addOption(
      new Option('--api-url <url>', 'gate API base URL (default GATE_API_URL or http://127.0.0.1:$GATE_PORT)'),
    );
}

/** A client for the options' API URL and key. `needKey` makes a missing key a usage error. */
export function clientFor(opts: ApiOptions, needKey?: 'agent' | 'reviewer'): GateHttpClient {
  if (needKey && !opts.key)
    throw new UsageError(
      `this command needs a ${needKey} key: pass --key or set GATE_API_KEY (create one with \`gate keys create --kind ${needKey} --id NAME\`)`,
    );
  return new GateHttpClient({ baseUrl: (opts.apiUrl ?? defaultApiUrl()).replace(/\/+$/, ''), key: opts.key });
}

/** Commander parser for a JSON object option (`--args`); bad JSON is a usage error (exit 2). */
export function parseJsonObject(value: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch (err) {
    throw new InvalidArgumentError(`not valid JSON (${(err as Error).message})`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new InvalidArgumentError('must be a JSON object, e.g. {"budget": 500000}');
  return parsed as Record<string, unknown>;
}

/** Commander parser for a positive integer option (`--limit`). */
export function parsePositiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError('must be a positive integer');
  return n;
}
