// The burst's clients: agents creating gates over HTTP as a team's batch job does, each
// create with its own Idempotency-Key, retried after the API's Retry-After when it is shed
// (src/client/shed-retry.ts, what the CLI and the adapters do); and a reviewer's listing
// and decisions.
import { randomUUID } from 'node:crypto';
import { retryAfterSeconds, retryShed } from '../src/client/shed-retry';
import { http, type BenchApi, type HttpResult } from './api';
import { BENCH_RUN, createBody } from './gate-requests';
import { now, percentile, runConcurrent, sleep } from './stats';

export interface Accepted {
  id: string;
  sha: string;
  /** performance.now() when the create was answered 201 or 200. */
  at: number;
  /** 503 gate_busy answers before it was taken. */
  shed: number;
}

export interface BurstCreates {
  accepted: Accepted[];
  /** 503 gate_busy answers in all. */
  shedAnswers: number;
  /** Creates that were shed at least once. */
  shedCreates: number;
  /** Creates that never got a gate (an error, or still shed after the retry budget). */
  lost: { i: number; why: string }[];
  /** From the first request sent to the last create taken, ms. */
  ms: number;
}

class Shed extends Error {
  constructor(readonly retryAfterS: number | undefined) {
    super('gate_busy');
  }
}

/**
 * `n` creates at concurrency `c`, each retried with the same key while it is shed, for up
 * to `shedWaitMs` in all. Never throws for a create: what did not get a gate is in `lost`.
 */
export async function burstCreates(
  api: BenchApi,
  tag: string,
  n: number,
  c: number,
  shedWaitMs: number,
  onAccepted?: (count: number) => void,
): Promise<BurstCreates> {
  const out: BurstCreates = { accepted: [], shedAnswers: 0, shedCreates: 0, lost: [], ms: 0 };
  const t0 = now();
  await runConcurrent(n, c, async (i) => {
    let shed = 0;
    try {
      const res = await retryShed(
        async (): Promise<HttpResult> => {
          const r = await http(`${api.url}/v1/approvals`, api.agentKey, 'POST', createBody(tag, i), {
            'idempotency-key': `burst-${BENCH_RUN}-${tag}-${i}`,
          });
          if (r.status === 503 && (r.body as { error?: { code?: string } })?.error?.code === 'gate_busy') {
            shed++;
            out.shedAnswers++;
            throw new Shed(retryAfterSeconds(r.retryAfter));
          }
          return r;
        },
        (err) => (err instanceof Shed ? { retryAfterS: err.retryAfterS } : undefined),
        { maxWaitMs: shedWaitMs },
      );
      if (shed > 0) out.shedCreates++;
      if (res.status !== 201 && res.status !== 200) {
        out.lost.push({ i, why: `${res.status} ${JSON.stringify(res.body).slice(0, 200)}` });
        return;
      }
      const b = res.body as { request_id: string; payload_sha256: string };
      out.accepted.push({ id: b.request_id, sha: b.payload_sha256, at: now(), shed });
      onAccepted?.(out.accepted.length);
    } catch (err) {
      if (shed > 0) out.shedCreates++;
      out.lost.push({ i, why: err instanceof Shed ? `still shed after ${shedWaitMs} ms` : String(err) });
    }
  });
  out.ms = Math.max(...out.accepted.map((a) => a.at), t0) - t0;
  return out;
}

export interface DecisionAnswers {
  latencies: number[];
  ok200: number;
  accepted202: number;
  other: string[];
  /** Gates answered 202, to follow until their decision is applied. */
  pending: { id: string; decisionId: string }[];
}

/** Approves every gate of `refs` at once, one POST each (the reviewer page's bulk approve), and sorts the answers. */
export async function decideAtOnce(api: BenchApi, refs: { id: string; sha: string }[]): Promise<DecisionAnswers> {
  const out: DecisionAnswers = { latencies: [], ok200: 0, accepted202: 0, other: [], pending: [] };
  await Promise.all(
    refs.map(async (g) => {
      const decisionId = randomUUID();
      const t0 = now();
      const r = await http(`${api.url}/v1/approvals/${g.id}/decision`, api.reviewerKey, 'POST', {
        decision: 'approve',
        payload_sha256: g.sha,
        decision_id: decisionId,
      }).catch((err: unknown) => ({ status: 0, body: String(err) }) as HttpResult);
      out.latencies.push(now() - t0);
      if (r.status === 200) out.ok200++;
      else if (r.status === 202) {
        out.accepted202++;
        out.pending.push({ id: g.id, decisionId });
      } else out.other.push(`${g.id}: ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`);
    }),
  );
  return out;
}

/** Waits until every gate answered 202 shows the decision applied (status approved); returns those that did not within `timeoutMs`. */
export async function awaitApplied(api: BenchApi, pending: { id: string }[], timeoutMs: number): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  let left = [...pending];
  while (left.length > 0 && Date.now() < deadline) {
    const still: typeof left = [];
    for (const p of left) {
      const r = await http(`${api.url}/v1/approvals/${p.id}`, api.reviewerKey, 'GET');
      if ((r.body as { status?: string })?.status !== 'approved') still.push(p);
    }
    left = still;
    if (left.length > 0) await sleep(1000);
  }
  return left.map((p) => p.id);
}

/** A reviewer's queue page refreshing while the burst runs: `limit=50` listings one after another, `gapMs` apart, until `stop()`. */
export function listWhile(
  api: BenchApi,
  gapMs: number,
): { stop(): Promise<{ p50: number; p95: number; n: number; errors: number }> } {
  let stopped = false;
  const lat: number[] = [];
  let errors = 0;
  const loop = (async () => {
    while (!stopped) {
      const t0 = now();
      const r = await http(`${api.url}/v1/approvals?status=requested&limit=50`, api.reviewerKey, 'GET').catch(
        () => ({ status: 0 }) as HttpResult,
      );
      lat.push(now() - t0);
      if (r.status !== 200) errors++;
      await sleep(gapMs);
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      return { p50: percentile(lat, 50), p95: percentile(lat, 95), n: lat.length, errors };
    },
  };
}
