/* eslint-disable @typescript-eslint/no-require-imports -- lazy loading on purpose; under tsx, import() would stay an ESM import */
import path from 'node:path';
import { Command, Option } from 'commander';
import { loadConfig } from '../../config';
import { GateCliError, UsageError } from '../errors';
import { emit, type CliIo } from '../io';
import { withJson } from '../options';

interface CreateOptions {
  json?: boolean;
  kind: 'agent' | 'reviewer';
  id: string;
  tenant: string;
}

/**
 * `gate keys create`: writes a key's hash straight into the store in GATE_DATA_DIR (or
 * GATE_DATABASE_URL) and prints the key itself once; it cannot be shown again.
 */
export function keysCommand(io: CliIo): Command {
  const cmd = new Command('keys').description('manage API keys');
  withJson(cmd.command('create').description('create an agent or reviewer key; prints it once'))
    .addOption(
      new Option('--kind <kind>', 'agent (requests, consumes) or reviewer (decides)')
        .choices(['agent', 'reviewer'])
        .makeOptionMandatory(),
    )
    .requiredOption('--id <name>', 'key id: the agent or reviewer name shown in the audit trail')
    .option('--tenant <tenant>', 'the tenant the key belongs to: it sees and changes only that tenant', 'default')
    .action(async (opts: CreateOptions) => {
      const created = await createKey(opts.kind, opts.id, opts.tenant);
      const out = { id: created.id, kind: created.kind, tenant: created.tenant, key: created.key };
      emit(
        io,
        opts.json,
        out,
        () => `created ${out.kind} key "${out.id}" in tenant "${out.tenant}":\n\n  ${out.key}\n`,
      );
      if (!opts.json) io.err('warning: this key is shown only once and only its hash is stored; keep it now.');
    });
  return cmd;
}

async function createKey(
  kind: 'agent' | 'reviewer',
  id: string,
  tenant: string,
): Promise<{ id: string; kind: string; tenant: string; key: string }> {
  // Loaded lazily: other commands must not open SQLite.
  const { openDb } = require('../../store/db') as typeof import('../../store/db');
  const { KeyExistsError, KeyStore } = require('../../store/key-store') as typeof import('../../store/key-store');
  const cfg = loadConfig();
  const db = openDb({ databaseUrl: cfg.databaseUrl, sqliteFile: path.join(cfg.dataDir, 'gate.db') });
  try {
    const store = new KeyStore(db);
    await store.migrate();
    return await store.create(kind, id, { tenant });
  } catch (err) {
    if (err instanceof KeyExistsError) throw new GateCliError(`${err.message}; pick another --id`);
    // The store validates kind, id and tenant before touching the database: those are usage errors.
    if (err instanceof Error && /^(key (kind|id)|tenant) /.test(err.message)) throw new UsageError(err.message);
    throw err;
  } finally {
    await db.close();
  }
}
