import fs from 'node:fs';
import path from 'node:path';
import type { WorkerBoundary } from './boundaries';
import type { StackSettings } from '../../src/stack/settings';
import type { Db } from '../../src/store/db';
import { inject, type Fault } from './faults';

/** What a cell of the table needs: the stack, its API, a handle on its gate database, and keys. */
export interface ChaosContext {
  s: StackSettings;
  apiUrl: string;
  db: Db;
  boundaryDir: string;
  agentKey: string;
  reviewerKey: string;
  scenario: Record<string, unknown>;
  log: (line: string) => void;
}

export interface CellResult {
  fault: Fault;
  boundary: WorkerBoundary;
  trials: number;
  lost: number;
  double: number;
  stuck: number;
  wrong: number;
  notes: string[];
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function call(ctx: ChaosContext, method: string, p: string, key: string, body?: unknown, timeoutMs = 30_000) {
  try {
    const res = await fetch(`${ctx.apiUrl}${p}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await res.text();
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON bodies, read field by field
    return { status: res.status, body: (text ? JSON.parse(text) : undefined) as any };
  } catch (err) {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON bodies, read field by field
    return { status: 0, body: { error: { message: String(err) } } as any };
  }
}

/** Retries through 503s and refused connections (a process of the stack is restarting). */
async function until<T>(what: string, f: () => Promise<T | undefined>, ms: number): Promise<T | undefined> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const v = await f().catch(() => undefined);
    if (v !== undefined) return v;
    await sleep(300);
  }
  return undefined;
}

interface Trial {
  runId: string;
  requestId?: string;
  heldBy?: number;
}

const keyOf = (b: WorkerBoundary, t: Trial): string | undefined =>
  b === 'decided' || b === 'rechecked' ? t.runId : t.requestId;

async function decide(ctx: ChaosContext, t: Trial, firstAnswerMs = 30_000, held?: () => boolean): Promise<boolean> {
  const ok = await until(
    `decision on ${t.requestId}`,
    async () => {
      if (held?.()) return true; // the call is past its decision, waiting at the boundary

      const g = await call(ctx, 'GET', `/v1/approvals/${t.requestId}`, ctx.reviewerKey);
      if (g.status !== 200) return undefined;
      if (g.body.status !== 'requested') return true; // decided on an earlier attempt whose answer was lost
      const r = await call(
        ctx,
        'POST',
        `/v1/approvals/${t.requestId}/decision`,
        ctx.reviewerKey,
        {
          decision: 'approve',
          payload_sha256: g.body.payload_sha256,
          decision_id: `chaos-${t.requestId}`,
        },
        firstAnswerMs,
      );
      return r.status === 200 ? true : undefined;
    },
    120_000,
  );
  return ok === true;
}

/**
 * One batch of a cell: `n` agent runs (the trip scenario: draft, validate, a gated
 * submit, a final answer), each held at `boundary`, the fault injected while they wait,
 * then every run checked once the stack is back. Returns the runs that met the fault.
 */
async function batch(ctx: ChaosContext, fault: Fault, boundary: WorkerBoundary, n: number, r: CellResult) {
  const hold = path.join(ctx.boundaryDir, `hold.${boundary}`);
  // Held from the start only at creation; the later boundaries once every gate exists, so
  // the runs' own ungated tools (draft, validate) pass the tool boundaries freely.
  if (boundary === 'created') fs.writeFileSync(hold, '');
  const trials: Trial[] = [];
  try {
    for (let i = 0; i < n; i++) {
      const started = await call(ctx, 'POST', '/v1/runs', ctx.agentKey, ctx.scenario);
      if (started.status !== 201) throw new Error(`run start: ${started.status} ${JSON.stringify(started.body)}`);
      trials.push({ runId: started.body.run_id });
    }
    for (const t of trials) {
      t.requestId = await until(
        'pending gate',
        async () => {
          const v = await call(ctx, 'GET', `/v1/runs/${t.runId}`, ctx.agentKey);
          return v.body?.pending_approvals?.[0]?.request_id as string | undefined;
        },
        90_000,
      );
      if (!t.requestId) r.notes.push(`${t.runId}: no gate appeared before the fault`);
    }
    if (boundary !== 'created') {
      fs.writeFileSync(hold, '');
      // Not awaited one by one: at the re-check the decision's answer waits for the held task.
      const reached = (t: Trial): boolean =>
        fs.existsSync(path.join(ctx.boundaryDir, `reached.${boundary}.${keyOf(boundary, t)}`));
      await Promise.all(trials.filter((t) => t.requestId).map((t) => decide(ctx, t, 8_000, () => reached(t))));
    }
    ctx.log(`    ${n} runs opened their gates; waiting at ${boundary}`);
    for (const t of trials) {
      const k = keyOf(boundary, t);
      if (!k) continue;
      const marker = path.join(ctx.boundaryDir, `reached.${boundary}.${k}`);
      const pid = await until(
        'boundary',
        async () => (fs.existsSync(marker) ? fs.readFileSync(marker, 'utf8') : undefined),
        60_000,
      );
      if (pid) t.heldBy = Number(pid);
      else r.notes.push(`${t.runId}: never reached ${boundary}`);
    }
  } catch (err) {
    fs.rmSync(hold, { force: true });
    throw err;
  }
  const held = trials.filter((t) => t.heldBy !== undefined);
  ctx.log(
    `    ${held.length} held at ${boundary} by ${[...new Set(held.map((t) => t.heldBy))].join(', ')}; injecting ${fault}`,
  );
  const met = new Set(
    await inject(
      ctx.s,
      fault,
      held.map((t) => t.heldBy!),
      () => fs.rmSync(hold, { force: true }),
    ),
  );
  ctx.log('    stack back; checking the runs');
  if (boundary === 'created') for (const t of trials) if (t.requestId) await decide(ctx, t);
  for (const t of trials) {
    const counted = t.heldBy !== undefined && met.has(t.heldBy);
    if (counted) r.trials++;
    const problem = await check(ctx, t);
    if (problem) {
      if (counted) r[problem.kind]++;
      r.notes.push(`${t.runId}${counted ? '' : ' (not faulted)'}: ${problem.kind}: ${problem.detail}`);
    }
  }
  for (const f of fs.readdirSync(ctx.boundaryDir))
    if (f.startsWith('reached.')) fs.rmSync(path.join(ctx.boundaryDir, f));
}

/** What went wrong with one run, if anything: its gate gone, its effect twice, never finished, or a wrong end. */
async function check(
  ctx: ChaosContext,
  t: Trial,
): Promise<{ kind: 'lost' | 'double' | 'stuck' | 'wrong'; detail: string } | undefined> {
  if (!t.requestId) return { kind: 'lost', detail: 'the run never opened its gate' };
  const end = await until(
    'run end',
    async () => {
      const v = await call(ctx, 'GET', `/v1/runs/${t.runId}`, ctx.agentKey);
      return v.status === 200 && ['completed', 'failed', 'cancelled'].includes(v.body.status) ? v.body : undefined;
    },
    180_000,
  ).catch(() => undefined); // not finished in time is a finding (stuck), not the end of the program
  const gate = await call(ctx, 'GET', `/v1/approvals/${t.requestId}`, ctx.reviewerKey);
  if (gate.status === 404) return { kind: 'lost', detail: `gate ${t.requestId} is gone` };
  const subs = await ctx.db.query<{ request_id: string; submission_id: string }>(
    `SELECT request_id, submission_id FROM trip_submissions WHERE session_id = ?`,
    [t.runId],
  );
  if (subs.length > 1) return { kind: 'double', detail: `${subs.length} submissions` };
  if (!end) return { kind: 'stuck', detail: `run not finished in 180 s (gate ${gate.body?.status})` };
  if (end.status !== 'completed')
    return { kind: 'wrong', detail: `run ${end.status}: ${JSON.stringify(end.failure ?? '')}` };
  if (gate.body.status !== 'consumed') return { kind: 'wrong', detail: `gate ended ${gate.body.status}` };
  if (subs.length !== 1 || subs[0]!.request_id !== t.requestId)
    return { kind: 'wrong', detail: `submissions ${JSON.stringify(subs)}` };
  const answer = String(end.final_answer);
  if (!answer.includes('Busan') || !answer.includes('800,000') || !answer.includes(subs[0]!.submission_id))
    return { kind: 'wrong', detail: `final answer: ${end.final_answer}` };
  const trail = await until(
    'trail',
    async () => {
      const a = await call(ctx, 'GET', `/v1/approvals/${t.requestId}/audit`, ctx.reviewerKey);
      return a.status === 200 && a.body.store?.lagging === 0 ? a.body : undefined;
    },
    60_000,
  );
  if (!trail?.verified || !trail.store?.verified || !trail.store.matches_workflow)
    return { kind: 'wrong', detail: `audit trail: ${JSON.stringify(trail?.store ?? trail)}` };
  return undefined;
}

export function emptyCell(fault: Fault, boundary: WorkerBoundary): CellResult {
  return { fault, boundary, trials: 0, lost: 0, double: 0, stuck: 0, wrong: 0, notes: [] };
}

/** One more batch for a cell that still lacks trials; the batch size shrinks to what is missing. */
export async function runBatch(ctx: ChaosContext, r: CellResult, want: number, batchSize: number): Promise<void> {
  // A killed single worker holds about half of a batch: ask for twice the missing trials.
  const missing = want - r.trials;
  const n = Math.min(batchSize, r.fault === 'kill_one_worker' ? missing * 2 : missing);
  const started = Date.now();
  await batch(ctx, r.fault, r.boundary, n, r);
  ctx.log(`  ${r.fault} @ ${r.boundary}: ${r.trials}/${want} trials (${((Date.now() - started) / 1000).toFixed(0)} s)`);
}

/** Runs batches until the cell has `want` faulted trials (or `maxBatches` ran). */
export async function runCell(
  ctx: ChaosContext,
  fault: Fault,
  boundary: WorkerBoundary,
  want: number,
  batchSize: number,
  maxBatches = Math.max(4, want),
): Promise<CellResult> {
  const r = emptyCell(fault, boundary);
  for (let b = 0; b < maxBatches && r.trials < want; b++) await runBatch(ctx, r, want, batchSize);
  return r;
}
