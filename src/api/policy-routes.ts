import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { GateError, invalidInput } from '../client/gate-error';
import { judge } from '../policy/judge';
import { explanation } from '../policy/explain';
import { policyRequestOf } from '../policy/policy-tests';
import type { ReviewerPolicy } from '../policy/reviewer-policy';
import type { AuditStore } from '../store/audit-store';
import type { GrantStore } from '../store/grant-store';
import { recordGrantEvent } from '../store/policy-events';
import { principalOf, type RequireKey } from './auth';

const ListQuery = z
  .object({
    status: z.enum(['active', 'all']).optional(),
    limit: z.coerce.number().int().min(1).max(1000).optional(),
  })
  .strict();

/** A grant id as the store makes them; anything else names no grant. */
const GRANT_ID = /^grt_[0-9a-f]{24}$/;

/**
 * `POST /v1/policy/explain` and the standing grants (`GET /v1/grants`,
 * `DELETE /v1/grants/{id}`), for reviewer keys. Grants are the caller's tenant's; another
 * tenant's grant answers 404 like a missing one.
 */
export function policyRoutes(
  app: FastifyInstance,
  deps: { requireKey: RequireKey; policy?: ReviewerPolicy; grants?: GrantStore; audit?: AuditStore },
): void {
  const reviewer = deps.requireKey('reviewer');

  app.post('/v1/policy/explain', { onRequest: reviewer }, async (req) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const q = policyRequestOf({ tenant: principalOf(req).tenant, ...body });
    if ('problems' in q)
      throw new GateError(
        422,
        'invalid_request',
        'the request to explain is not valid',
        q.problems.map((p) => ({ path: `$.${p.split(':')[0]}`, message: p })),
      );
    const j = judge(deps.policy, q.request, { trace: true });
    return explanation(j, deps.policy);
  });

  app.get('/v1/grants', { onRequest: reviewer }, async (req) => {
    const q = ListQuery.safeParse(req.query ?? {});
    if (!q.success) throw invalidInput('query', q.error);
    const grants = deps.grants
      ? await deps.grants.list(principalOf(req).tenant, { active: q.data.status === 'active', limit: q.data.limit })
      : [];
    return { grants };
  });

  app.delete<{ Params: { id: string } }>('/v1/grants/:id', { onRequest: reviewer }, async (req) => {
    const p = principalOf(req);
    const id = req.params.id;
    const r = GRANT_ID.test(id) && deps.grants ? await deps.grants.revoke(id, p.tenant, p.id) : undefined;
    if (!r) throw new GateError(404, 'not_found', `no grant ${id.slice(0, 100)}`);
    if (r.revoked && deps.audit)
      await recordGrantEvent(
        deps.audit,
        id,
        'grant.revoked',
        { actor_type: 'human', actor_id: p.id },
        {
          uses: r.grant.uses,
        },
      );
    return { grant: r.grant, revoked: r.revoked };
  });
}
