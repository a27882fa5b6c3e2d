import type { FastifyInstance } from 'fastify';
import type { GateClient } from '../client/gate-client';
import { EvidenceExporter } from '../evidence/exporter';
import type { SigningKeys } from '../evidence/signing-keys';
import { scopeOfRequest, type RequireKey } from './auth';

/**
 * Evidence bundles (DSSE envelopes around an in-toto Statement, docs/evidence.md) and the
 * public keys that verify them. A bundle is read like the request itself: any key of the
 * tenant, and for an agent only its own requests; anything else is a 404.
 */
export function evidenceRoutes(
  app: FastifyInstance,
  gate: GateClient,
  requireKey: RequireKey,
  keys: SigningKeys | undefined,
): void {
  const exporter = new EvidenceExporter(gate, keys);

  // Public on purpose: an auditor needs the keys without holding an API key.
  app.get('/v1/signing-keys', async () => ({ keys: keys?.publicKeys() ?? [] }));

  app.get<{ Params: { id: string } }>('/v1/approvals/:id/evidence', { onRequest: requireKey() }, async (req) =>
    exporter.bundle(req.params.id, scopeOfRequest(req)),
  );
}
