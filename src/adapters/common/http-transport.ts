import type { z } from 'zod';
import { retryAfterSeconds, retryShed } from '../../client/shed-retry';
import { GateRequestError, GateUnreachableError, shedOf } from './errors';
import { ConsumedGate, GateStatusView, OpenedGate, type GateTransport } from './transport';

export interface HttpGateOptions {
  /** Base URL of the gate API, e.g. `http://127.0.0.1:8787`. */
  url: string;
  /** An agent key (`gate keys create --kind agent --id <agentId>`). */
  agentKey: string;
  /** The id that key was created with; it becomes the evidence's `agent_id`. */
  agentId: string;
  /** The key's tenant (`gate keys create --tenant`), when it is not the default tenant. */
  tenant?: string;
  /** A fetch implementation; the global one by default. */
  fetch?: typeof fetch;
  /**
   * How long a create shed by the server (503 `gate_busy`: its workers are behind) is sent
   * again, in all, honouring its Retry-After, with the same idempotency key (default 60 s;
   * 0: not at all, the refusal is thrown).
   */
  shedWaitMs?: number;
}

/**
 * The gate API over HTTP with an agent key: what an agent process runs. Decisions are
 * read from the server on every call; nothing is cached on this side.
 */
export function httpGate(options: HttpGateOptions): GateTransport {
  const base = options.url.replace(/\/+$/, '');
  const doFetch = options.fetch ?? fetch;
  async function send<S extends z.ZodType>(schema: S, method: string, path: string, body?: unknown, headers = {}) {
    let res: Response;
    try {
      res = await doFetch(`${base}${path}`, {
        method,
        headers: {
          accept: 'application/json',
          authorization: `Bearer ${options.agentKey}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...headers,
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (err) {
      throw new GateUnreachableError(base, (err as { cause?: unknown }).cause ?? err);
    }
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = text;
    }
    if (!res.ok) {
      const e = (parsed as { error?: { code?: unknown; message?: unknown; details?: unknown } } | undefined)?.error;
      throw new GateRequestError(
        res.status,
        String(e?.code ?? `http_${res.status}`),
        String(e?.message ?? (text.trim() || `HTTP ${res.status}`)),
        e?.details,
        retryAfterSeconds(res.headers.get('retry-after')),
      );
    }
    const r = schema.safeParse(parsed);
    if (!r.success) {
      throw new GateRequestError(res.status, 'unexpected_response', `${method} ${path} answered an unexpected body`);
    }
    return r.data as z.infer<S>;
  }
  const at = (id: string) => `/v1/approvals/${encodeURIComponent(id)}`;
  return {
    agentId: options.agentId,
    ...(options.tenant ? { tenant: options.tenant } : {}),
    create: (body, key) =>
      retryShed(() => send(OpenedGate, 'POST', '/v1/approvals', body, { 'idempotency-key': key }), shedOf, {
        maxWaitMs: options.shedWaitMs,
      }),
    get: (id) => send(GateStatusView, 'GET', at(id)),
    consume: (id) => send(ConsumedGate, 'POST', `${at(id)}/consume`, {}),
  };
}
