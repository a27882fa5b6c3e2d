import { verifyChain, type AuditEvent } from '../common/audit';

/** What `GateClient.audit` returns. */
export interface AuditView {
  request_id: string;
  /** `workflow`: the gate's own chain; `store`: the append-only store (no worker answered). */
  source: 'workflow' | 'store';
  verified: boolean;
  count: number;
  problem?: { index: number; reason: string };
  /**
   * The append-only store checked against the gate's chain (when this client has the
   * store): its own chain intact, and every stored event equal to the gate's event of
   * the same seq. `lagging` counts events the store has not received yet (writes in flight).
   */
  store?: {
    count: number;
    verified: boolean;
    matches_workflow: boolean;
    lagging: number;
    problem?: { index: number; reason: string };
  };
  events: AuditEvent[];
}

/** The store's copy of a trail, checked on its own and against the gate's chain. */
export function storeCheck(stored: AuditEvent[], chain: AuditEvent[]): NonNullable<AuditView['store']> {
  const v = verifyChain(stored);
  const mismatch = stored.findIndex((e, i) => chain[i]?.hash !== e.hash);
  const problem = !v.ok
    ? { index: v.index, reason: v.reason }
    : mismatch >= 0
      ? {
          index: mismatch,
          reason: `stored event ${stored[mismatch]!.event_id} differs from the gate's event at seq ${mismatch}`,
        }
      : undefined;
  return {
    count: stored.length,
    verified: v.ok,
    matches_workflow: mismatch === -1,
    lagging: Math.max(0, chain.length - stored.length),
    ...(problem ? { problem } : {}),
  };
}
