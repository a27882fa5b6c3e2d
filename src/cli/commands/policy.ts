/* eslint-disable @typescript-eslint/no-require-imports -- lazy loading on purpose, as in keys.ts: other commands must not open SQLite */
import fs from 'node:fs';
import path from 'node:path';
import { Command } from 'commander';
import { loadConfig } from '../../config';
import { parseDuration } from '../../common/duration';
import { explanation } from '../../policy/explain';
import { judge } from '../../policy/judge';
import { lintPolicyText } from '../../policy/parse';
import { policyRequestOf, runPolicyTests, testDiff } from '../../policy/policy-tests';
import { replayPolicy, type ReplayReport } from '../../policy/replay';
import type { ReviewerPolicy } from '../../policy/reviewer-policy';
import { CheckFailedError, UsageError } from '../errors';
import type { Json } from '../http';
import { emit, type CliIo } from '../io';
import { clientFor, withApi, withJson, type ApiOptions } from '../options';
import { renderTable } from '../table';
import { formatExplanation } from '../format-policy';

/** The file a command reads: the argument, else GATE_POLICY_FILE. */
function fileOf(arg: string | undefined): string {
  const file = arg ?? process.env.GATE_POLICY_FILE;
  if (!file) throw new UsageError('name a rule file, or set GATE_POLICY_FILE');
  return file;
}

function readText(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new CheckFailedError(`${file} cannot be read: ${(err as Error).message}`);
  }
}

/** A rule file that lints clean; its problems (exit 1) otherwise. */
function loadOrFail(file: string): ReviewerPolicy {
  const r = lintPolicyText(readText(file), file);
  if (r.problems.length > 0 || !r.policy)
    throw new CheckFailedError(
      `${file} has ${r.problems.length} problem(s):\n${r.problems.map((p) => `  ${p}`).join('\n')}`,
    );
  return r.policy;
}

/** `gate policy lint|test|explain|replay`: the rule file (GATE_POLICY_FILE) checked, tested, explained and replayed. */
export function policyCommand(io: CliIo): Command {
  const cmd = new Command('policy').description('check, test, explain and replay the rule file (GATE_POLICY_FILE)');

  withJson(
    cmd
      .command('lint')
      .description('every problem of a rule file with its place (rules[2].when: ...); exit 1 when there is one')
      .argument('[file]', 'the rule file (default GATE_POLICY_FILE)'),
  ).action((arg: string | undefined, opts: { json?: boolean }) => {
    const file = fileOf(arg);
    const r = lintPolicyText(readText(file), file);
    const summary = {
      file,
      ok: r.problems.length === 0,
      problems: r.problems,
      ...(r.policy
        ? {
            version: r.policy.v2 ? 2 : 1,
            rules: r.policy.v2?.rules.length ?? r.policy.rules.length,
            sha256: r.policy.sha256,
          }
        : {}),
    };
    if (r.problems.length > 0) {
      emit(io, opts.json, summary, () => r.problems.map((p) => `${file}: ${p}`).join('\n'));
      throw new CheckFailedError(`${file}: ${r.problems.length} problem(s)`);
    }
    emit(
      io,
      opts.json,
      summary,
      () => `${file}: ok (version ${summary.version}, ${summary.rules} rules, sha256 ${r.policy!.sha256})`,
    );
  });

  withJson(
    cmd
      .command('test')
      .description("run the file's own tests: cases; exit 1 with a diff when one fails")
      .argument('[file]', 'the rule file (default GATE_POLICY_FILE)'),
  ).action((arg: string | undefined, opts: { json?: boolean }) => {
    const file = fileOf(arg);
    const results = runPolicyTests(loadOrFail(file));
    const failed = results.filter((r) => !r.ok);
    emit(io, opts.json, { file, passed: results.length - failed.length, failed: failed.length, results }, () =>
      [
        ...results.flatMap((r) => [
          `${r.ok ? 'ok  ' : 'FAIL'}  ${r.name}`,
          ...(r.ok ? [] : testDiff(r).map((l) => `        ${l}`)),
        ]),
        `${results.length - failed.length} passed, ${failed.length} failed`,
      ].join('\n'),
    );
    if (failed.length > 0) throw new CheckFailedError(`${failed.length} of ${results.length} policy test(s) failed`);
  });

  withApi(
    cmd
      .command('explain')
      .description("why a request gets its outcome: each rule's match and values, the file's hash")
      .requiredOption('--request <file>', 'the request as JSON (action, target, summary, args, blast_radius, ...)')
      .option('--policy <file>', "judge by this file here, instead of asking the server's (reviewer key)"),
  ).action(async (opts: ApiOptions & { request: string; policy?: string }) => {
    let request: unknown;
    try {
      request = JSON.parse(readText(opts.request));
    } catch (err) {
      if (err instanceof CheckFailedError) throw err;
      throw new UsageError(`${opts.request} is not JSON: ${(err as Error).message}`);
    }
    let out: Json;
    if (opts.policy) {
      const policy = loadOrFail(opts.policy);
      const q = policyRequestOf(request);
      if ('problems' in q) throw new UsageError(`${opts.request}: ${q.problems.join('; ')}`);
      out = explanation(judge(policy, q.request, { trace: true }), policy);
    } else {
      out = await clientFor(opts, 'reviewer').explainPolicy(request as Json);
    }
    emit(io, opts.json, out, () => formatExplanation(out));
  });

  withJson(
    cmd
      .command('replay')
      .description('judge the requests recorded in the audit store again under a new file: what would change, per rule')
      .requiredOption('--policy <file>', 'the new rule file')
      .option('--since <duration>', 'how far back (90s, 15m, 24h, 30d)', '30d'),
  ).action(async (opts: { json?: boolean; policy: string; since: string }) => {
    const policy = loadOrFail(opts.policy);
    let seconds: number;
    try {
      seconds = parseDuration(opts.since, '--since');
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
    const since = new Date(Date.now() - seconds * 1000).toISOString();
    const report = await withAudit(async (audit) => {
      const { readEvaluations } = require('../../store/policy-events') as typeof import('../../store/policy-events');
      return replayPolicy(policy, await readEvaluations(audit, since));
    });
    emit(io, opts.json, { since, ...report }, () => formatReplay(report, opts.since));
  });
  return cmd;
}

async function withAudit<T>(f: (audit: import('../../store/audit-store').AuditStore) => Promise<T>): Promise<T> {
  const { openDb } = require('../../store/db') as typeof import('../../store/db');
  const { AuditStore } = require('../../store/audit-store') as typeof import('../../store/audit-store');
  const cfg = loadConfig();
  const db = openDb({ databaseUrl: cfg.databaseUrl, sqliteFile: path.join(cfg.dataDir, 'gate.db') });
  try {
    const audit = new AuditStore(db);
    await audit.migrate();
    return await f(audit);
  } finally {
    await db.close();
  }
}

/** The replay as a table: under each rule of the new file, was -> would be, and how many requests. */
export function formatReplay(r: ReplayReport, since: string): string {
  const table = renderTable(
    ['RULE', 'WAS', '', 'WOULD BE', 'REQUESTS'],
    r.lines.map((l) => [l.rule_id, l.was, '->', l.would, String(l.requests)]),
  );
  const changes = r.changes.map((c) => `  ${c.at}  ${c.request_id}  ${c.action}: ${c.was} -> ${c.would}`);
  return [
    `${r.total} request(s) recorded in the last ${since}; ${r.changed} would change under ${r.policy_sha256.slice(0, 12)}…`,
    ...(r.lines.length ? ['', table] : []),
    ...(changes.length ? ['', 'changes:', ...changes] : []),
  ].join('\n');
}
