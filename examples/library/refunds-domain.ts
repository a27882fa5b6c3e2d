// 3. Your own domain: one gated tool an agent run may call, and a read route of its own.
import { digest } from 'approval-gate';
import { migrateUnderLock, type DomainAdapter, type DomainSource } from 'approval-gate/worker';
import { z } from 'zod';

const IssueRefundArgs = z.object({ order_id: z.string().min(1), cents: z.int().positive() }).strict();

/** A factory over the gate's store: it creates its table, then returns the adapter (each process calls it once). */
export const refundsDomain: DomainSource = async ({ db }) => {
  // Under a PostgreSQL advisory lock of the domain's own: processes starting together take turns.
  await migrateUnderLock(db, 41_001, async (tx) => {
    await tx.run(
      'CREATE TABLE IF NOT EXISTS refunds (idempotency_key TEXT PRIMARY KEY, session_id TEXT, order_id TEXT, cents INTEGER)',
    );
  });
  const adapter: DomainAdapter = {
    name: 'refunds',
    tools: [
      {
        name: 'issue_refund',
        description: 'Refund an amount in cents on an order',
        risk: 'change',
        args: IssueRefundArgs,
        action: 'refund.create',
      },
    ],
    permittedTools: async () => ['issue_refund'],
    async plan(_session, tool, args) {
      const input = IssueRefundArgs.parse(args);
      return {
        policy: 'require_approval',
        input,
        approvals_required: 1,
        evidence: {
          action: 'refund.create',
          target: `order/${input.order_id}`,
          summary: `Refund ${input.cents} cents on order ${input.order_id}`,
          blast_radius: { cents: input.cents },
          preconditions: {},
          // What the approval binds to: these exact args (re-checked before the tool runs).
          snapshot: {
            tool,
            args_sha256: digest(input),
            result_version: 1,
            result_sha256: digest(input),
            validation_sha256: digest({ valid: true }),
          },
        },
      };
    },
    async recheck(_session, _tool, input) {
      const rows = await db.query('SELECT 1 FROM refunds WHERE order_id = ?', [input.order_id]);
      return rows.length === 0
        ? { ok: true }
        : { ok: false, reason: 'the order was refunded meanwhile', mismatches: ['order.refunded'] };
    },
    revise: async () => ({ ok: false, issues: [{ path: '$', message: 'refunds are approved or rejected as asked' }] }),
    async execute(session, _tool, input, idempotencyKey) {
      await db.run('INSERT INTO refunds VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING', [
        idempotencyKey,
        session,
        input.order_id,
        input.cents,
      ]);
      return { content: `refunded ${String(input.cents)} cents on order ${String(input.order_id)}`, values: input };
    },
    // Served as GET /v1/domains/refunds/refunds: the rows of the runs the caller may see.
    routes: (app, { requireKey, visibleSessions }) => {
      app.get('/refunds', { onRequest: requireKey() }, async (req) => {
        const sessions = await visibleSessions(req);
        if (sessions.length === 0) return [];
        const marks = sessions.map(() => '?').join(', ');
        return db.query(`SELECT * FROM refunds WHERE session_id IN (${marks}) ORDER BY order_id`, sessions);
      });
    },
  };
  return adapter;
};
