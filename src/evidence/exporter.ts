import type { DsseEnvelope } from '../common/dsse';
import { approvalStatement, signedEnvelope } from '../common/evidence-statement';
import type { Scope } from '../common/tenant';
import type { GateClient } from '../client/gate-client';
import { GateError } from '../client/gate-error';
import type { SigningKeys } from './signing-keys';
import { packageVersion } from '../package-version';

const VERSION = packageVersion();

/**
 * Builds and signs evidence bundles. The payload comes from the gate (its live state, or
 * its final state once it has finished), the events from the gate's hash chain, checked
 * against the append-only store (or from the store when no worker answers); nothing
 * comes from the caller but the request id.
 */
export class EvidenceExporter {
  constructor(
    private readonly gate: GateClient,
    private readonly keys: SigningKeys | undefined,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /**
   * The signed bundle of one request, in any state (a pending one says so). Throws
   * GateError: 404 outside the scope or unknown, 503 without a signing key or when no
   * worker can give the gate's state, 409 when the trail does not verify (nothing is signed then).
   */
  async bundle(id: string, scope?: Scope): Promise<DsseEnvelope> {
    const keys = this.keys;
    if (!keys?.keyid)
      throw new GateError(503, 'no_signing_key', 'this API has no evidence signing key: set GATE_SIGNING_KEY_FILE');
    const view = await this.gate.get(id, scope);
    if (view.stale)
      throw new GateError(
        503,
        'gate_unavailable',
        `no worker answered for ${id}; its evidence payload cannot be read now`,
      );
    const audit = await this.gate.audit(id, scope);
    if (!audit.verified)
      throw new GateError(
        409,
        'audit_broken',
        `the audit trail of ${id} does not verify: ${audit.problem?.reason ?? ''}`,
      );
    if (audit.store && (!audit.store.verified || !audit.store.matches_workflow))
      throw new GateError(
        409,
        'audit_store_mismatch',
        `the append-only store's trail of ${id} differs from the gate's: ${audit.store.problem?.reason ?? ''}`,
      );
    const { statement } = approvalStatement({
      payload: view.payload,
      events: audit.events,
      exported_at: this.clock().toISOString(),
      exporter: { name: 'approval-gate', version: VERSION },
    });
    // The chain must be about this very payload: otherwise the gate and the store disagree about the request.
    const stray = audit.events.find((e) => e.payload_sha256 !== statement.predicate.payload_sha256);
    if (stray)
      throw new GateError(409, 'audit_broken', `event ${stray.seq} of ${id} concerns another payload than the gate's`);
    return signedEnvelope(statement, keys.signer());
  }
}
