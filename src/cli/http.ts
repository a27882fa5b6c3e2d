import { retryAfterSeconds, retryShed } from '../client/shed-retry';
import { ApiError, UnreachableError } from './errors';

/** JSON as the API sends it; commands read the fields they need defensively. */
export type Json = Record<string, unknown>;

/** Where the API is and who calls it. */
export interface ApiTarget {
  /** Base URL without a trailing slash, e.g. `http://127.0.0.1:8787`. */
  baseUrl: string;
  /** Bearer key (agent or reviewer); omitted when not given. */
  key?: string;
  /** How long, in all, a create shed by the server (503 `gate_busy`) is sent again (default 60 s; 0: not at all). */
  shedWaitMs?: number;
}

/** `GATE_API_URL`, else `http://127.0.0.1:${GATE_PORT || 8787}`. */
export function defaultApiUrl(env: NodeJS.ProcessEnv = process.env): string {
  return (env.GATE_API_URL || `http://127.0.0.1:${env.GATE_PORT || 8787}`).replace(/\/+$/, '');
}

/** A decision as `POST /v1/approvals/{id}/decision` takes it. */
export interface DecisionInput {
  decision: 'approve' | 'reject' | 'modify';
  payload_sha256: string;
  reason?: string;
  note?: string;
  args?: Record<string, unknown>;
  args_sha256?: string;
  /** A standing grant to give with an approval (`for`, `max_uses`, `when?`). */
  grant?: { for: string | number; max_uses: number; when?: string };
}

/**
 * The small HTTP client the CLI and the MCP server share: one method per route of
 * docs/http-api.md. Throws ApiError for any 4xx/5xx (with the server's code and
 * message) and UnreachableError when no answer came back.
 */
export class GateHttpClient {
  constructor(private readonly target: ApiTarget) {}

  /**
   * `POST /v1/approvals` (agent key). A create shed while the gate workers are behind (503
   * `gate_busy`) started nothing: it is sent again, the same body with the same key (the
   * default key derives from the body), after the server's Retry-After, for up to `shedWaitMs`.
   */
  createApproval(body: Json, idempotencyKey?: string): Promise<Json> {
    const headers: Record<string, string> = idempotencyKey ? { 'idempotency-key': idempotencyKey } : {};
    return retryShed(() => this.send<Json>('POST', '/v1/approvals', body, headers), shedOf, {
      maxWaitMs: this.target.shedWaitMs,
    });
  }
  /** `GET /v1/approvals?status=&target=&limit=`. */
  listApprovals(filter: {
    status?: string;
    target?: string;
    limit?: number;
    since?: string;
    before?: string;
  }): Promise<unknown> {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(filter)) if (v !== undefined && v !== '') q.set(k, String(v));
    const qs = q.toString();
    return this.send('GET', `/v1/approvals${qs ? `?${qs}` : ''}`);
  }
  /** `GET /v1/approvals/{id}`. */
  getApproval(id: string): Promise<Json> {
    return this.send('GET', `/v1/approvals/${encodeURIComponent(id)}`);
  }
  /** `POST /v1/approvals/{id}/decision` (reviewer key). */
  decide(id: string, decision: DecisionInput): Promise<Json> {
    return this.send('POST', `/v1/approvals/${encodeURIComponent(id)}/decision`, decision);
  }
  /** `GET /v1/approvals/{id}/audit`. */
  audit(id: string): Promise<unknown> {
    return this.send('GET', `/v1/approvals/${encodeURIComponent(id)}/audit`);
  }
  /** `GET /v1/approvals/{id}/evidence`: the signed evidence bundle (a DSSE envelope). */
  evidence(id: string): Promise<Json> {
    return this.send('GET', `/v1/approvals/${encodeURIComponent(id)}/evidence`);
  }
  /** `GET /v1/signing-keys` (no key needed): the public keys that verify evidence bundles. */
  signingKeys(): Promise<Json> {
    return this.send('GET', '/v1/signing-keys');
  }
  /** `POST /v1/runs` (agent key). */
  startRun(body: Json): Promise<Json> {
    return this.send('POST', '/v1/runs', body);
  }
  /** `GET /v1/runs/{id}`. */
  getRun(id: string): Promise<Json> {
    return this.send('GET', `/v1/runs/${encodeURIComponent(id)}`);
  }
  /** `GET /v1/runs/{id}/audit`. */
  runAudit(id: string): Promise<unknown> {
    return this.send('GET', `/v1/runs/${encodeURIComponent(id)}/audit`);
  }
  /** `POST /v1/runs/{id}/cancel` (the run's agent key). */
  cancelRun(id: string): Promise<Json> {
    return this.send('POST', `/v1/runs/${encodeURIComponent(id)}/cancel`, {});
  }
  /** `POST /v1/runs/{id}/interactions/{interaction_id}` (reviewer key). */
  respond(id: string, interactionId: string, body: Json): Promise<Json> {
    return this.send(
      'POST',
      `/v1/runs/${encodeURIComponent(id)}/interactions/${encodeURIComponent(interactionId)}`,
      body,
    );
  }

  /** `POST /v1/policy/explain` (reviewer key): the server's rule file on one request. */
  explainPolicy(request: Json): Promise<Json> {
    return this.send('POST', '/v1/policy/explain', request);
  }
  /** `GET /v1/grants?status=` (reviewer key). */
  listGrants(status?: 'active' | 'all'): Promise<Json> {
    return this.send('GET', `/v1/grants${status ? `?status=${status}` : ''}`);
  }
  /** `DELETE /v1/grants/{id}` (reviewer key). */
  revokeGrant(id: string): Promise<Json> {
    return this.send('DELETE', `/v1/grants/${encodeURIComponent(id)}`);
  }

  private async send<T>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<T> {
    const url = `${this.target.baseUrl}${path}`;
    const h: Record<string, string> = { accept: 'application/json', ...headers };
    if (this.target.key) h.authorization = `Bearer ${this.target.key}`;
    if (body !== undefined) h['content-type'] = 'application/json';
    let res: Response;
    try {
      res = await fetch(url, { method, headers: h, body: body === undefined ? undefined : JSON.stringify(body) });
    } catch (err) {
      throw new UnreachableError(this.target.baseUrl, (err as { cause?: unknown }).cause ?? err);
    }
    const text = await res.text();
    const parsed = parseJson(text);
    if (!res.ok) throw apiErrorOf(res.status, parsed, text, retryAfterSeconds(res.headers.get('retry-after')));
    return parsed as T;
  }
}

/** A create the API shed (503 `gate_busy`), with the wait it asked for. */
function shedOf(err: unknown): { retryAfterS?: number } | undefined {
  if (!(err instanceof ApiError) || err.status !== 503 || err.code !== 'gate_busy') return undefined;
  return err.retryAfterS === undefined ? {} : { retryAfterS: err.retryAfterS };
}

function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** Reads `{ error: { code, message, details } }`, tolerating servers that answer otherwise. */
function apiErrorOf(status: number, parsed: unknown, text: string, retryAfterS?: number): ApiError {
  const e = (parsed as { error?: { code?: unknown; message?: unknown; details?: unknown } } | undefined)?.error;
  if (e && typeof e === 'object') {
    return new ApiError(status, String(e.code ?? `http_${status}`), String(e.message ?? text), e.details, retryAfterS);
  }
  const flat = parsed as { code?: unknown; message?: unknown } | undefined;
  if (flat && typeof flat === 'object' && typeof flat.message === 'string') {
    return new ApiError(status, String(flat.code ?? `http_${status}`), flat.message);
  }
  return new ApiError(status, `http_${status}`, text.trim() || `HTTP ${status}`);
}
