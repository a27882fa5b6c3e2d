// The phases of the pending section: fill the queue, time decisions, time list requests.
import type { Client } from '@temporalio/client';
import type { GateClient } from '../src/client/gate-client';
import { http, type BenchApi } from './api';
import { progress } from './context';
import { approval, retryTransient, startGate } from './gate-requests';
import { fmt } from './report';
import type { RssSampler } from './rss';
import { now, percentile, runConcurrent } from './stats';

export interface GateRef {
  id: string;
  payloadSha256: string;
}

/** A day: no gate of the fill expires while the bench runs. */
const FILL_TTL_SECONDS = 86_400;

/** Starts `n` gates at concurrency `c` (workflow.start with startOptions); in creation order. Progress every 10% when given `rss`. */
export async function fill(
  client: Client,
  creator: GateClient,
  tag: string,
  n: number,
  c: number,
  check: () => void,
  rss?: { worker: RssSampler; server?: RssSampler },
): Promise<{ gates: GateRef[]; ms: number }> {
  const gates: GateRef[] = [];
  const step = Math.max(1, Math.ceil(n / 10));
  const t0 = now();
  const ms = await runConcurrent(n, c, async (i) => {
    if (i % 100 === 0) check();
    // A retried create of the same key answers with the existing gate (GateClient.create), so retrying is safe.
    const g = await retryTransient(() => startGate(client, creator, tag, i, FILL_TTL_SECONDS));
    gates.push({ id: g.id, payloadSha256: g.payloadSha256 });
    if (rss && (gates.length % step === 0 || gates.length === n)) {
      const secs = (now() - t0) / 1000;
      const server = rss.server ? `, server RSS ${fmt(rss.server.last, 'MiB')}` : '';
      progress(
        `pending fill ${gates.length}/${n} (${Math.round((100 * gates.length) / n)}%) in ${secs.toFixed(0)} s, ${(gates.length / secs).toFixed(0)}/s, worker RSS ${fmt(rss.worker.last, 'MiB')}${server}`,
      );
    }
  });
  return { gates, ms };
}

export interface Decisions {
  latencies: number[];
  failures: string[];
}

/**
 * Approves each gate by update through GateClient (the API's path), one at a time; a
 * failed decision is kept, not thrown. `check` throws when the worker or server is gone,
 * so a dead process ends the section instead of 30 s update timeouts per gate.
 */
export async function approveEach(
  gates: GateClient,
  refs: GateRef[],
  check: () => void,
  into: Decisions = { latencies: [], failures: [] },
): Promise<Decisions> {
  for (const g of refs) {
    check();
    const t0 = now();
    try {
      const r = await gates.decide(g.id, approval(g));
      if (r.status !== 'approved') throw new Error(`status ${r.status} after the approval`);
      into.latencies.push(now() - t0);
    } catch (err) {
      into.failures.push(
        `${g.id}: ${err instanceof Error ? err.message : String(err)} after ${(now() - t0).toFixed(0)} ms`,
      );
    }
  }
  return into;
}

export interface ListTiming {
  p95: number;
  p50: number;
  /** Fewest approvals any answer held (should equal the limit with a full queue). */
  minCount: number;
  errors: number;
}

/** `n` sequential GET /v1/approvals?status=requested&limit=… with the reviewer key, after one warm-up request. */
export async function timeList(api: BenchApi, limit: number, n: number): Promise<ListTiming> {
  const url = `${api.url}/v1/approvals?status=requested&limit=${limit}`;
  await http(url, api.reviewerKey, 'GET');
  const lat: number[] = [];
  let minCount = Infinity;
  let errors = 0;
  for (let i = 0; i < n; i++) {
    const t0 = now();
    const res = await http(url, api.reviewerKey, 'GET');
    lat.push(now() - t0);
    if (res.status !== 200) errors++;
    else minCount = Math.min(minCount, (res.body as { approvals: unknown[] }).approvals.length);
  }
  return { p95: percentile(lat, 95), p50: percentile(lat, 50), minCount, errors };
}
