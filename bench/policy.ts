// Section `policy`: what a version 2 rule file of 200 rules adds to a create, against a file
// of one rule, in the same run. Two APIs on one gate worker, each with its GATE_POLICY_FILE;
// each create goes through the real HTTP API at concurrency 1 (its latency, not the server's
// queue, is what a rule file can add), the two kinds interleaved create by create, so that
// load from outside the bench falls on both alike. Both files end on the same rule, so both
// creates open the same gate. A second figure times the judgement alone, in process.
import fs from 'node:fs';
import path from 'node:path';
import { GateClient } from '../src/client/gate-client';
import { judge } from '../src/policy/judge';
import { parsePolicyText } from '../src/policy/parse';
import { http, startBenchApi, type BenchApi } from './api';
import { Closers } from './closers';
import { progress, type BenchContext } from './context';
import { AGENT_ID, createBody } from './gate-requests';
import { fmt } from './report';
import { inTurn, median, now, percentile, runConcurrent } from './stats';
import { quietBeforeRound } from './settle';
import { startGateWorker } from './workers';

/** The rule every file ends on: refunds ask a person, so each create opens a gate. */
const LAST_RULE = ['  - id: refunds-ask', '    action: refund.*', '    effect: require'];

/** One rule: the baseline. */
export function oneRuleFile(): string {
  return ['version: 2', 'defaults: { effect: require }', 'rules:', ...LAST_RULE, ''].join('\n');
}

/**
 * 200 rules, as a large team's file might look: 100 on other services' actions (the glob
 * alone rules them out), 60 on `refund.*` and 39 on `*` whose CEL conditions are evaluated
 * on every refund and do not match, then the last rule.
 */
export function manyRulesFile(): string {
  const rules: string[] = [];
  for (let i = 0; i < 100; i++)
    rules.push(
      `  - id: svc${i}-writes`,
      `    action: svc${i}.*`,
      `    when: args.amount > ${i * 100}`,
      '    effect: block',
    );
  for (let i = 0; i < 60; i++)
    rules.push(
      `  - id: refunds-${i}`,
      '    action: refund.*',
      `    when: args.amount_cents > ${1_000_000 + i} && args.currency == "usd"`,
      `    effect: ${i % 2 ? 'allow' : 'block'}`,
    );
  for (let i = 0; i < 39; i++)
    rules.push(
      `  - id: any-${i}`,
      '    action: "*"',
      `    when: has(blast_radius.amount_cents) && blast_radius.amount_cents > ${10_000_000 + i}`,
      '    effect: block',
    );
  return ['version: 2', 'defaults: { effect: require }', 'rules:', ...rules, ...LAST_RULE, ''].join('\n');
}

export async function policySection(ctx: BenchContext): Promise<void> {
  const { client, cfg, report } = ctx;
  const files = { one: oneRuleFile(), many: manyRulesFile() };
  const n = cfg.policyN;
  // The judgement alone, in process: the same request against each file, compiled once per hash.
  const judgeP50 = Object.fromEntries(
    (['one', 'many'] as const).map((k) => {
      const policy = parsePolicyText(files[k], `${k}.yaml`);
      const body = createBody('judge', 0);
      const request = {
        action: String(body.action),
        target: String(body.target),
        summary: String(body.summary),
        args: body.args,
        blast_radius: body.blast_radius as Record<string, unknown>,
        preconditions: body.preconditions as Record<string, unknown>,
        agent: AGENT_ID,
        tenant: 'default',
      };
      const times: number[] = [];
      for (let i = 0; i < 2000; i++) {
        const t0 = now();
        const j = judge(policy, request);
        times.push(now() - t0);
        if (j.rule_id !== 'refunds-ask') throw new Error(`the ${k} file decided by ${j.rule_id}, not refunds-ask`);
      }
      return [k, percentile(times.slice(200), 50)];
    }),
  ) as Record<'one' | 'many', number>;

  const closers = new Closers();
  try {
    const worker = closers.add(await startGateWorker(ctx, 'policy'));
    const apis: Record<'one' | 'many', BenchApi> = { one: undefined!, many: undefined! };
    for (const k of ['one', 'many'] as const) {
      const dir = path.join(ctx.dir, `policy-${k}`);
      fs.mkdirSync(dir, { recursive: true });
      const file = path.join(dir, 'rules.yaml');
      fs.writeFileSync(file, files[k]);
      apis[k] = closers.add(
        await startBenchApi({ ...worker.env, GATE_DATA_DIR: dir, GATE_POLICY_FILE: file }, worker.connection),
        (a) => a.close(),
      );
    }
    const gates = new GateClient(client, { taskQueue: worker.taskQueue });
    let errors = 0;
    let lastError = '';
    /** One round: `count` creates of each kind, one at a time, alternating which kind goes first; p50 of each. */
    const round = async (tag: string, count: number): Promise<Record<'one' | 'many', number>> => {
      const lat = { one: [] as number[], many: [] as number[] };
      const ids: string[] = [];
      for (let i = 0; i < count; i++) {
        for (const k of inTurn(['one', 'many'] as const, i)) {
          const t0 = now();
          const res = await http(`${apis[k].url}/v1/approvals`, apis[k].agentKey, 'POST', createBody(`${k}_${tag}`, i));
          lat[k].push(now() - t0);
          if (res.status === 201) ids.push((res.body as { request_id: string }).request_id);
          else {
            errors++;
            lastError = `${res.status} ${JSON.stringify(res.body).slice(0, 300)}`;
          }
        }
      }
      // Untimed: they end cancelled, so later sections see only their own gates.
      await runConcurrent(ids.length, 8, (i) => gates.cancel(ids[i]!, AGENT_ID, 'bench cleanup').then(() => undefined));
      return { one: percentile(lat.one, 50), many: percentile(lat.many, 50) };
    };
    await round('warm', 20);
    const p50 = { one: [] as number[], many: [] as number[] };
    for (let r = 0; r < cfg.rounds; r++) {
      await quietBeforeRound(ctx, `policy round ${r + 1}`);
      const got = await round(`r${r}`, n);
      p50.one.push(got.one);
      p50.many.push(got.many);
      progress(
        `policy round ${r + 1}/${cfg.rounds}: 200 rules p50 ${fmt(got.many, 'ms')}; 1 rule p50 ${fmt(got.one, 'ms')}`,
      );
    }
    const [many, one] = [median(p50.many), median(p50.one)];
    report.ratio('policy.create_p50_c1', many, one, 'ms', undefined, ['200 rules', '1 rule']);
    report.value(
      'policy.create_p50_added',
      many - one,
      'ms',
      { op: '<=', value: 1 },
      '200 rules over 1 rule, median of rounds',
    );
    report.info(
      'policy.judge_p50',
      `200 rules ${(judgeP50.many * 1000).toFixed(1)} µs  1 rule ${(judgeP50.one * 1000).toFixed(1)} µs (the judgement alone, in process)`,
    );
    report.value(
      'policy.http_errors',
      errors,
      '',
      { op: '==', value: 0 },
      `of ${cfg.rounds * n * 2} POSTs not answered 201${errors ? `; last: ${lastError}` : ''}`,
    );
  } finally {
    await closers.close();
  }
}
