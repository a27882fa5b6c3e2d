import fs from 'node:fs';
import path from 'node:path';
import { Command } from 'commander';
import { loadConfig } from '../../config';
import { verifyEvidenceBundle } from '../../common/evidence-verify';
import { statementOf } from '../../common/evidence-statement';
import { generateSigningKey, signingKeyFilesOf, SigningKeys, type PublicSigningKey } from '../../evidence/signing-keys';
import { nodeEd25519Verify, trustedKeysFromFiles, trustedKeysOfConfig } from '../../evidence/verify-file';
import { CheckFailedError, GateCliError, UsageError } from '../errors';
import { bundleFileName, formatPublicKeys, formatVerification } from '../format-evidence';
import type { GateHttpClient, Json } from '../http';
import { emit, type CliIo } from '../io';
import { clientFor, withApi, withJson, type ApiOptions } from '../options';
import { rotateSigningKey } from '../../evidence/rotate-key';

interface ExportOptions extends ApiOptions {
  out?: string;
  since?: string;
}

const collect = (v: string, all: string[]): string[] => [...all, v];

/** A local file step whose failure is the operator's to fix (a missing setting, an existing file): no stack. */
function operatorStep<T>(f: () => T): T {
  try {
    return f();
  } catch (err) {
    throw new GateCliError((err as Error).message);
  }
}

/** The status the bundle states, read without verifying (for progress lines). */
function statusIn(bundle: Json): string {
  try {
    const s = statementOf(bundle as { payload: string }) as { predicate?: { outcome?: { status?: unknown } } };
    return String(s.predicate?.outcome?.status ?? 'unknown');
  } catch {
    return 'unreadable';
  }
}

/** Every request created since `since` that the key may see, newest first, one page of 500 at a time. */
async function requestsSince(client: GateHttpClient, since: string): Promise<string[]> {
  const ids: string[] = [];
  const seen = new Set<string>();
  let before: string | undefined;
  for (;;) {
    const page = (await client.listApprovals({ since, before, limit: 500 })) as {
      approvals?: { request_id: string; created_at: string }[];
    };
    const rows = page.approvals ?? [];
    const fresh = rows.filter((r) => !seen.has(r.request_id));
    for (const r of fresh) {
      seen.add(r.request_id);
      ids.push(r.request_id);
    }
    if (rows.length < 500 || fresh.length === 0) return ids;
    // created_at has millisecond precision: the next page ends 1 ms after it, and repeats are skipped above.
    before = new Date(Date.parse(rows[rows.length - 1]!.created_at) + 1).toISOString();
  }
}

async function exportPeriod(io: CliIo, opts: ExportOptions & { since: string }): Promise<void> {
  if (!opts.out) throw new UsageError('--since needs --out DIR: one file per request');
  if (Number.isNaN(Date.parse(opts.since))) throw new UsageError(`--since "${opts.since}" is not an ISO 8601 date`);
  const client = clientFor(opts);
  const ids = await requestsSince(client, new Date(opts.since).toISOString());
  fs.mkdirSync(opts.out, { recursive: true });
  const failed: { request_id: string; error: string }[] = [];
  let done = 0;
  for (const id of ids) {
    let line: string;
    try {
      const bundle = await client.evidence(id);
      fs.writeFileSync(path.join(opts.out, bundleFileName(id)), `${JSON.stringify(bundle, null, 2)}\n`);
      line = statusIn(bundle);
    } catch (err) {
      failed.push({ request_id: id, error: (err as Error).message });
      line = `FAILED: ${(err as Error).message}`;
    }
    io.err(`exported ${++done}/${ids.length}: ${id} ${line}`);
  }
  const summary = { dir: opts.out, since: opts.since, exported: ids.length - failed.length, failed };
  emit(io, opts.json, summary, () => `${summary.exported} of ${ids.length} bundles written to ${opts.out}`);
  if (failed.length > 0) throw new CheckFailedError(`${failed.length} bundle(s) could not be exported`);
}

/** `gate evidence ...`: signed evidence bundles and the keys that verify them. */
export function evidenceCommand(io: CliIo): Command {
  const cmd = new Command('evidence').description('signed evidence bundles: export, verify offline, signing keys');

  withApi(
    cmd
      .command('export')
      .description("a request's signed evidence bundle, or with --since every request of a period")
      .argument('[id]', 'request id'),
  )
    .option('--out <path>', 'write to this file (with --since: a directory, one <request_id>.json each)')
    .option('--since <date>', 'every request created since this ISO 8601 date or time')
    .action(async (id: string | undefined, opts: ExportOptions) => {
      if (opts.since !== undefined) {
        if (id) throw new UsageError('give a request id or --since, not both');
        return exportPeriod(io, { ...opts, since: opts.since });
      }
      if (!id) throw new UsageError('give a request id, or --since DATE --out DIR');
      const bundle = await clientFor(opts).evidence(id);
      if (!opts.out) return io.out(JSON.stringify(bundle, null, 2));
      fs.writeFileSync(opts.out, `${JSON.stringify(bundle, null, 2)}\n`);
      const status = statusIn(bundle);
      emit(io, opts.json, { request_id: id, file: opts.out, status }, () => `wrote ${opts.out}: ${id} (${status})`);
    });

  withJson(
    cmd
      .command('verify')
      .description('verify a bundle offline: signature, digests, audit chain, quorum, self-approval, outcome')
      .argument('<file>', 'the bundle (JSON)'),
  )
    .option(
      '--key <pem>',
      "a trusted public key PEM file (repeatable; default: this machine's signing keys)",
      collect,
      [],
    )
    .action(async (file: string, opts: { json?: boolean; key: string[] }) => {
      let bundle: unknown;
      try {
        bundle = JSON.parse(fs.readFileSync(file, 'utf8'));
      } catch (err) {
        throw new GateCliError(`${file}: ${(err as Error).message}`);
      }
      const keys = operatorStep(() =>
        opts.key.length > 0 ? trustedKeysFromFiles(opts.key) : trustedKeysOfConfig(signingKeyFilesOf(loadConfig())),
      );
      const v = await verifyEvidenceBundle(bundle, { keys, verifyEd25519: nodeEd25519Verify });
      emit(io, opts.json, { file, ...v }, () => formatVerification(file, v));
      if (!v.ok) throw new CheckFailedError(`evidence check failed: ${v.failed.check}: ${v.failed.message}`);
    });

  withApi(cmd.command('key').description('print the public keys that verify bundles (GET /v1/signing-keys)'))
    .option('--local', "read this machine's key files instead of asking the API")
    .action(async (opts: ApiOptions & { local?: boolean }) => {
      const keys = opts.local
        ? SigningKeys.load(signingKeyFilesOf(loadConfig())).publicKeys()
        : (((await clientFor(opts).signingKeys()).keys ?? []) as PublicSigningKey[]);
      emit(io, opts.json, { keys }, () => formatPublicKeys(keys));
    });

  withJson(cmd.command('keygen').description('write a new Ed25519 signing key (PKCS#8 PEM, mode 0600)'))
    .requiredOption('--out <file>', 'where to write it; an existing file is never overwritten')
    .action((opts: { json?: boolean; out: string }) => {
      const { keyid } = operatorStep(() => generateSigningKey(opts.out));
      emit(io, opts.json, { file: opts.out, keyid }, () => `wrote ${opts.out}: keyid ${keyid}`);
    });

  withJson(
    cmd
      .command('rotate-key')
      .description('retire the active signing key (its public key stays published) and make a new one in its place'),
  ).action((opts: { json?: boolean }) => {
    const r = operatorStep(() => rotateSigningKey(loadConfig()));
    emit(
      io,
      opts.json,
      r,
      () =>
        `retired ${r.retired_keyid} (public key kept in ${r.retired_file})\nnew active key ${r.keyid} in ${r.key_file}\nrestart the API to sign with it`,
    );
  });
  return cmd;
}
