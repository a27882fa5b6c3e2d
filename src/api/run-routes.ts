import type { FastifyInstance } from 'fastify';
import { RunClient } from '../client/run-client';
import { ConversationStore } from '../store/conversation-store';
import { verifyChain } from '../common/audit';
import type { GateConfig } from '../config';
import { principalOf, scopeOfRequest } from './auth';
import type { RouteContext } from './route-context';

/**
 * `/v1/runs` (agent runs through the front door), for the domains the server was given
 * (a run naming another is refused with 422 and the known names). Registered through
 * the server's `extraRoutes` hook.
 */
export function runRoutes(cfg: Pick<GateConfig, 'taskQueue'>) {
  return (app: FastifyInstance, ctx: RouteContext): void => {
    if (!ctx.temporal) throw new Error('run routes need the Temporal client');
    const runs = new RunClient(ctx.temporal, {
      taskQueue: cfg.taskQueue,
      domains: ctx.domains.names(),
      conversations: ctx.db ? new ConversationStore(ctx.db) : undefined,
    });

    app.post('/v1/runs', { onRequest: ctx.requireKey('agent') }, async (req, reply) => {
      const p = principalOf(req);
      const started = await runs.start(req.body, p.id, p.tenant);
      return reply.code(201).send(started);
    });
    app.get<{ Params: { id: string } }>('/v1/runs/:id', { onRequest: ctx.requireKey() }, async (req) =>
      runs.get(req.params.id, scopeOfRequest(req)),
    );
    // Interactions are questions to a person: reviewer keys answer them, never the agent itself.
    app.post<{ Params: { id: string; iid: string } }>(
      '/v1/runs/:id/interactions/:iid',
      { onRequest: ctx.requireKey('reviewer') },
      async (req) => runs.respond(req.params.id, req.params.iid, req.body, principalOf(req).id, scopeOfRequest(req)),
    );
    app.post<{ Params: { id: string } }>(
      '/v1/runs/:id/cancel',
      { onRequest: ctx.requireKey('agent') },
      async (req, reply) => {
        await runs.cancel(req.params.id, principalOf(req).id, scopeOfRequest(req));
        return reply.code(202).send({ run_id: req.params.id, status: 'cancelling' });
      },
    );
    // The run's own trail (run.started, tool.result, policy.blocked, …) from the append-only store.
    app.get<{ Params: { id: string } }>('/v1/runs/:id/audit', { onRequest: ctx.requireKey() }, async (req) => {
      await runs.runInfo(req.params.id, scopeOfRequest(req)); // 404 for an unknown run or one the caller may not see
      const events = await ctx.audit.list(req.params.id);
      const v = verifyChain(events);
      return {
        run_id: req.params.id,
        verified: v.ok,
        count: events.length,
        ...(v.ok ? {} : { problem: { index: v.index, reason: v.reason } }),
        events,
      };
    });
  };
}
