import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { DecisionBody } from '../common/decision';
import { ApprovalStatus } from '../common/lifecycle';
import type { GateClient } from '../client/gate-client';
import { GateError, invalidInput } from '../client/gate-error';
import { authOf, principalOf, scopeOfRequest, type RequireKey } from './auth';
import type { ApiMetrics } from './metrics';
import { listViewerOf, unansweredViewerOf, viewerOf, type Reader } from '../common/viewer';
import type { Principal } from '../common/tenant';
import { labelValue } from '../common/metrics-catalog';
import type { ListCache } from './list-cache';

type WithId = { Params: { id: string } };

/** The reviewer reading, or undefined for an agent key: only reviewers are told whether they may decide. */
const readerOf = (p: Principal): Reader | undefined =>
  p.kind === 'reviewer' ? { id: p.id, roles: p.roles ?? [] } : undefined;

/** No stored target or agent id holds a control character, so a filter with one is a mistake, not a miss. */
const filterText = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .refine((v) => !/[\u0000-\u001f\u007f-\u009f]/.test(v), 'must not contain control characters');

/** A date or a time with its offset, normalised to UTC ISO 8601. */
const instant = z.union([z.iso.datetime({ offset: true }), z.iso.date()]).transform((v) => new Date(v).toISOString());

const ListQuery = z
  .object({
    status: z.enum(ApprovalStatus).optional(),
    target: filterText(500).optional(),
    agent_id: filterText(200).optional(),
    limit: z.coerce.number().int().min(1).max(500).optional(),
    /** Only gates started at or after this time (ISO 8601 date or time): an audit period's start. */
    since: instant.optional(),
    /** Only gates started before this time: the next page of a period, from the oldest `created_at` seen. */
    before: instant.optional(),
  })
  .strict();

const CancelBody = z.object({ reason: z.string().trim().min(1).max(2000).optional() }).strict();

/** Empty query values mean "no filter", as in `?status=&target=`. */
function dropEmpty(q: unknown): Record<string, unknown> {
  return Object.fromEntries(Object.entries((q ?? {}) as Record<string, unknown>).filter(([, v]) => v !== ''));
}

function idempotencyKeyOf(header: string | string[] | undefined): string | undefined {
  if (Array.isArray(header))
    throw new GateError(422, 'invalid_request', 'send one Idempotency-Key header, not several');
  return header;
}

/**
 * The approval routes of docs/http-api.md. Agents create, consume and cancel; reviewers
 * decide; either kind reads. Every route works inside the caller's scope: its tenant,
 * and for an agent its own requests; anything else is a 404 like a missing id. Every
 * refusal is thrown as GateError and answered by the server's error handler.
 */
export function approvalRoutes(
  app: FastifyInstance,
  gate: GateClient,
  requireKey: RequireKey,
  metrics?: ApiMetrics,
  listCache?: ListCache<Awaited<ReturnType<GateClient['list']>>>,
): void {
  /** The result label of a forwarded call: its refusal code, or `error` for anything else. */
  const counted = async <T>(count: (result: string) => void, call: () => Promise<T>, ok: (r: T) => string) => {
    try {
      const r = await call();
      count(ok(r));
      return r;
    } catch (err) {
      count(err instanceof GateError ? err.code : 'error');
      throw err;
    }
  };
  // A change through this API is seen by the next listing: see ListCache.touch.
  if (listCache)
    app.addHook('onResponse', async (req, reply) => {
      const url = req.routeOptions.url;
      if (req.method === 'POST' && reply.statusCode < 300 && url?.startsWith('/v1/approvals'))
        listCache.touch(url === '/v1/approvals');
    });
  const agent = requireKey('agent');
  const reviewer = requireKey('reviewer');
  const anyKey = requireKey();

  app.post('/v1/approvals', { onRequest: agent }, async (req, reply) => {
    const p = principalOf(req);
    const caller = {
      agentId: p.id,
      tenant: p.tenant,
      idempotencyKey: idempotencyKeyOf(req.headers['idempotency-key']),
    };
    const action = (req.body as { action?: string } | undefined)?.action;
    let outcome: Awaited<ReturnType<GateClient['create']>>;
    try {
      outcome = await gate.create(req.body, caller);
    } catch (err) {
      if (err instanceof GateError && err.code === 'gate_busy')
        metrics?.creates.inc({ action: labelValue(action), result: 'shed' });
      throw err;
    }
    const { created, request } = outcome;
    metrics?.created(action, created);
    void reply.code(created ? 201 : 200).header('location', `/v1/approvals/${request.request_id}`);
    return request;
  });

  app.get('/v1/approvals', { onRequest: anyKey }, async (req) => {
    const q = ListQuery.safeParse(dropEmpty(req.query));
    if (!q.success) throw invalidInput('query', q.error);
    const filter = {
      status: q.data.status,
      target: q.data.target,
      agentId: q.data.agent_id,
      limit: q.data.limit,
      since: q.data.since,
      before: q.data.before,
      scope: scopeOfRequest(req),
    };
    const approvals = listCache
      ? await listCache.get(JSON.stringify(filter), () => gate.list(filter))
      : await gate.list(filter);
    const reader = readerOf(principalOf(req));
    return {
      approvals: reader ? approvals.map((a) => ({ ...a, viewer: listViewerOf(a, reader) })) : approvals,
      ...(reader ? { viewer: { reviewer_id: reader.id, roles: reader.roles } } : {}),
      // The reviewer page counts time left from this, not from the browser's own clock.
      server_time: new Date().toISOString(),
    };
  });

  app.get<WithId>('/v1/approvals/:id', { onRequest: anyKey }, async (req) => {
    const view = await gate.get(req.params.id, scopeOfRequest(req));
    const reader = readerOf(principalOf(req));
    const viewer = !reader
      ? undefined
      : !view.stale
        ? viewerOf(view, reader)
        : view.status === 'requested' && !view.closed
          ? unansweredViewerOf(reader)
          : listViewerOf(view, reader);
    return { ...view, ...(viewer ? { viewer } : {}), server_time: new Date().toISOString() };
  });

  // 200 with the result; 202 `decision_accepted` when the gate could not apply it in time and it went by signal.
  app.post<WithId>('/v1/approvals/:id/decision', { onRequest: reviewer }, async (req, reply) => {
    const body = DecisionBody.safeParse(req.body ?? {});
    if (!body.success) throw invalidInput('decision', body.error);
    const { decision_id, ...rest } = body.data;
    const outcome = await counted(
      (result) => metrics?.decisions.inc({ decision: rest.decision, result }),
      () =>
        gate.decide(
          req.params.id,
          {
            ...rest,
            decision_id: decision_id ?? randomUUID(),
            reviewer_id: principalOf(req).id,
            reviewer_roles: principalOf(req).roles ?? [],
            // From the credential the request authenticated with, never from its body (DecisionBody is strict).
            reviewer_auth: authOf(principalOf(req)),
          },
          scopeOfRequest(req),
        ),
      (r) => (r.pending ? 'accepted' : r.applied ? 'applied' : 'replayed'),
    );
    if (outcome.pending) void reply.code(202);
    return outcome;
  });

  app.post<WithId>('/v1/approvals/:id/consume', { onRequest: agent }, async (req) =>
    counted(
      (result) => metrics?.consumes.inc({ result }),
      () => gate.consume(req.params.id, principalOf(req).id, scopeOfRequest(req)),
      () => 'consumed',
    ),
  );

  app.post<WithId>('/v1/approvals/:id/cancel', { onRequest: agent }, async (req) => {
    const body = CancelBody.safeParse(req.body ?? {});
    if (!body.success) throw invalidInput('cancel', body.error);
    const state = await gate.cancel(req.params.id, principalOf(req).id, body.data.reason, scopeOfRequest(req));
    return {
      request_id: state.request_id,
      status: state.status,
      status_reason: state.status_reason,
      updated_at: state.updated_at,
    };
  });

  app.get<WithId>('/v1/approvals/:id/audit', { onRequest: anyKey }, async (req) =>
    gate.audit(req.params.id, scopeOfRequest(req)),
  );
}
