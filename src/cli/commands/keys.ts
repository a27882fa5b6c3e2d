/* eslint-disable @typescript-eslint/no-require-imports -- lazy loading on purpose; under tsx, import() would stay an ESM import */
import path from 'node:path';
import os from 'node:os';
import { Command, Option } from 'commander';
import { loadConfig } from '../../config';
import { parseDuration } from '../../common/duration';
import { verifyChain } from '../../common/audit';
import type { KeyInfo, KeyKind, KeyStore } from '../../store/key-store';
import type { AuditStore } from '../../store/audit-store';
import { CheckFailedError, GateCliError, UsageError } from '../errors';
import { emit, type CliIo } from '../io';
import { withJson } from '../options';
import { renderTable } from '../table';

// `gate keys ...`: each command writes straight into the store in GATE_DATA_DIR (or
// GATE_DATABASE_URL), the one the API reads on every request, and records the event in the
// key's own audit chain (`key:<kind>:<id>`), with the operator who ran it.

interface Stores {
  keys: KeyStore;
  audit: AuditStore;
}

const kindOption = (what: string) =>
  new Option('--kind <kind>', `${what}; needed only when the id holds keys of both kinds`).choices([
    'agent',
    'reviewer',
  ]);
const rolesOf = (s: string | undefined): string[] =>
  (s ?? '')
    .split(',')
    .map((r) => r.trim())
    .filter(Boolean);

/** Who ran the command, for the audit trail: GATE_OPERATOR, else the OS user. */
function operator(): { actor_type: 'human'; actor_id: string } {
  return { actor_type: 'human', actor_id: `operator:${process.env.GATE_OPERATOR || os.userInfo().username}` };
}

function expiryOf(opts: { expiresIn?: string; expiresAt?: string }): string | undefined {
  if (opts.expiresIn && opts.expiresAt) throw new UsageError('give --expires-in or --expires-at, not both');
  if (opts.expiresIn)
    return new Date(Date.now() + usage(() => parseDuration(opts.expiresIn!, '--expires-in')) * 1000).toISOString();
  if (opts.expiresAt && Number.isNaN(Date.parse(opts.expiresAt)))
    throw new UsageError(`--expires-at "${opts.expiresAt}" is not an ISO 8601 time`);
  return opts.expiresAt;
}

function usage<T>(f: () => T): T {
  try {
    return f();
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

export function keysCommand(io: CliIo): Command {
  const cmd = new Command('keys').description('manage API keys: create, list, rotate, revoke');

  withJson(cmd.command('create').description('create an agent or reviewer key; prints it once'))
    .addOption(
      new Option('--kind <kind>', 'agent (requests, consumes) or reviewer (decides)')
        .choices(['agent', 'reviewer'])
        .makeOptionMandatory(),
    )
    .requiredOption('--id <name>', 'key id: the agent or reviewer name shown in the audit trail')
    .option('--tenant <tenant>', 'the tenant the key belongs to: it sees and changes only that tenant', 'default')
    .option('--roles <list>', 'reviewer roles, comma-separated (e.g. finance,ops): checked against GATE_POLICY_FILE')
    .option('--expires-in <duration>', 'the key stops working after this long (90s, 15m, 24h, 30d)')
    .option('--expires-at <time>', 'the key stops working at this ISO 8601 time')
    .action(
      async (opts: {
        json?: boolean;
        kind: KeyKind;
        id: string;
        tenant: string;
        roles?: string;
        expiresIn?: string;
        expiresAt?: string;
      }) => {
        const expiresAt = expiryOf(opts);
        const created = await withStores(async ({ keys, audit }, { recordKeyEvent, KeyExistsError }) => {
          try {
            const c = await keys.create(opts.kind, opts.id, {
              tenant: opts.tenant,
              roles: rolesOf(opts.roles),
              expiresAt,
            });
            const info = (await keys.find(c.id, c.kind))[0]!;
            await recordKeyEvent(audit, c, 'key.created', operator(), {
              roles: info.roles,
              expires_at: c.expires_at ?? null,
            });
            return { ...c, roles: info.roles };
          } catch (err) {
            if (err instanceof KeyExistsError)
              throw new GateCliError(`${err.message}; pick another --id, or rotate it`);
            throw err;
          }
        });
        // Roles and expiry only when set: without them the output is the `{ id, kind, tenant, key }` scripts rely on.
        const out = {
          id: created.id,
          kind: created.kind,
          tenant: created.tenant,
          key: created.key,
          ...(created.roles.length ? { roles: created.roles } : {}),
          ...(created.expires_at ? { expires_at: created.expires_at } : {}),
        };
        emit(
          io,
          opts.json,
          out,
          () =>
            `created ${out.kind} key "${out.id}" in tenant "${out.tenant}"${out.roles ? ` with roles ${out.roles.join(', ')}` : ''}${out.expires_at ? `, expiring ${out.expires_at}` : ''}:\n\n  ${out.key}\n`,
        );
        if (!opts.json) io.err('warning: this key is shown only once and only its hash is stored; keep it now.');
      },
    );

  withJson(
    cmd
      .command('list')
      .description('list keys: holder, kind, tenant, roles, status, expiry, last use (never the keys)'),
  )
    .option('--tenant <tenant>', 'only this tenant')
    .action(async (opts: { json?: boolean; tenant?: string }) => {
      const keys = await withStores(({ keys }) => keys.list({ tenant: opts.tenant }));
      emit(io, opts.json, { keys }, () =>
        keys.length === 0
          ? 'no keys'
          : renderTable(
              ['KIND', 'ID', 'TENANT', 'ROLES', 'STATUS', 'CREATED', 'EXPIRES', 'LAST USED'],
              keys.map((k) => [
                k.kind,
                k.id,
                k.tenant,
                k.roles.join(','),
                statusText(k),
                k.created_at,
                k.expires_at ?? '',
                k.last_used_at ?? '',
              ]),
            ),
      );
    });

  withJson(cmd.command('revoke <id>').description('revoke a key now: every API process refuses it on its next request'))
    .addOption(kindOption('which key'))
    .option('--reason <text>', 'why, for the audit trail')
    .action(async (id: string, opts: { json?: boolean; kind?: KeyKind; reason?: string }) => {
      const info = await withStores(async ({ keys, audit }, { recordKeyEvent }) => {
        const kind = await kindFor(keys, id, opts.kind);
        const revoked = await keys.revoke(kind, id);
        await recordKeyEvent(audit, revoked, 'key.revoked', operator(), {}, opts.reason);
        return revoked;
      });
      emit(io, opts.json, info, () => `revoked ${info.kind} key "${info.id}" at ${info.revoked_at}`);
    });

  withJson(cmd.command('rotate <id>').description('give a key holder a new key; the old one works for a grace period'))
    .addOption(kindOption('which key'))
    .option('--grace <duration>', 'how long the old key keeps working (0 stops it now)', '24h')
    .option('--expires-in <duration>', 'a new expiry for the new key (default: keep the current one)')
    .option('--expires-at <time>', 'a new expiry time for the new key')
    .action(
      async (
        id: string,
        opts: { json?: boolean; kind?: KeyKind; grace: string; expiresIn?: string; expiresAt?: string },
      ) => {
        const graceSeconds = usage(() => parseDuration(opts.grace, '--grace'));
        const expiresAt = expiryOf(opts);
        const rotated = await withStores(async ({ keys, audit }, { recordKeyEvent }) => {
          const kind = await kindFor(keys, id, opts.kind);
          const r = await keys.rotate(kind, id, { graceSeconds, expiresAt });
          await recordKeyEvent(audit, r, 'key.rotated', operator(), {
            previous_key_until: r.previous_key_until,
            expires_at: r.expires_at ?? null,
          });
          return r;
        });
        emit(
          io,
          opts.json,
          rotated,
          () =>
            `rotated ${rotated.kind} key "${rotated.id}"; the previous key works until ${rotated.previous_key_until}:\n\n  ${rotated.key}\n`,
        );
        if (!opts.json) io.err('warning: this key is shown only once and only its hash is stored; keep it now.');
      },
    );

  withJson(cmd.command('roles <id> <roles>').description('set a key\'s reviewer roles (comma-separated; "" for none)'))
    .addOption(kindOption('which key'))
    .action(async (id: string, roles: string, opts: { json?: boolean; kind?: KeyKind }) => {
      const info = await withStores(async ({ keys, audit }, { recordKeyEvent }) => {
        const kind = await kindFor(keys, id, opts.kind);
        const before = (await keys.find(id, kind))[0]!;
        const after = await keys.setRoles(kind, id, rolesOf(roles));
        await recordKeyEvent(audit, after, 'key.roles_changed', operator(), { from: before.roles, to: after.roles });
        return after;
      });
      emit(
        io,
        opts.json,
        info,
        () => `${info.kind} key "${info.id}" now has roles: ${info.roles.join(', ') || '(none)'}`,
      );
    });

  withJson(cmd.command('audit <id>').description("a key's events (created, rotated, revoked, roles), chain verified"))
    .addOption(kindOption('which key'))
    .action(async (id: string, opts: { json?: boolean; kind?: KeyKind }) => {
      const events = await withStores(async ({ keys, audit }, { keyTrailId }) => {
        const kind = await kindFor(keys, id, opts.kind, true);
        return audit.list(keyTrailId({ kind, id }));
      });
      const check = verifyChain(events);
      emit(io, opts.json, { events, verified: check.ok }, () =>
        [
          check.ok ? `chain verified (${events.length} events)` : `CHAIN BROKEN: ${check.reason}`,
          ...events.map((e) => `${e.timestamp}  ${e.event_type}  ${e.actor_id}${e.note ? `  ${e.note}` : ''}`),
        ].join('\n'),
      );
      if (!check.ok) throw new CheckFailedError(`the audit chain of key ${id} does not verify`);
    });
  return cmd;
}

function statusText(k: KeyInfo): string {
  return k.previous_key_until ? `${k.status} (previous key until ${k.previous_key_until})` : k.status;
}

/** The kind of the one key with this id, or the given one; a usage error when ambiguous or missing. */
async function kindFor(keys: KeyStore, id: string, kind: KeyKind | undefined, revokedToo = false): Promise<KeyKind> {
  const found = (await keys.find(id, kind)).filter((k) => revokedToo || k.status !== 'revoked');
  if (found.length === 0)
    throw new GateCliError(
      `no ${revokedToo ? '' : 'live '}${kind ? `${kind} ` : ''}key with id "${id}" (see gate keys list)`,
    );
  if (found.length > 1) throw new UsageError(`"${id}" holds an agent and a reviewer key; say which with --kind`);
  return found[0]!.kind;
}

type Modules = typeof import('../../store/key-store') & typeof import('../../store/key-events');

async function withStores<T>(f: (s: Stores, m: Modules) => Promise<T>): Promise<T> {
  // Loaded lazily: other commands must not open SQLite.
  const { openDb } = require('../../store/db') as typeof import('../../store/db');
  const keyStore = require('../../store/key-store') as typeof import('../../store/key-store');
  const keyEvents = require('../../store/key-events') as typeof import('../../store/key-events');
  const { AuditStore } = require('../../store/audit-store') as typeof import('../../store/audit-store');
  const cfg = loadConfig();
  const db = openDb({ databaseUrl: cfg.databaseUrl, sqliteFile: path.join(cfg.dataDir, 'gate.db') });
  try {
    const keys = new keyStore.KeyStore(db);
    const audit = new AuditStore(db);
    await keys.migrate();
    await audit.migrate();
    return await f({ keys, audit }, { ...keyStore, ...keyEvents });
  } catch (err) {
    // The store validates kind, id, tenant, roles and times before touching the database: those are usage errors.
    if (err instanceof Error && /^(key (kind|id|expiry)|tenant|role|grace period) /.test(err.message))
      throw new UsageError(err.message);
    if (err instanceof Error && err.name === 'KeyNotFoundError') throw new GateCliError(err.message);
    throw err;
  } finally {
    await db.close();
  }
}
