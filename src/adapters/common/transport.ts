import { z } from 'zod';

/** What `POST /v1/approvals` answers: the gate's id, status, deadline and the digest decisions bind to. */
export const OpenedGate = z.object({
  request_id: z.string().min(1),
  status: z.string().min(1),
  expires_at: z.string(),
  payload_sha256: z.string(),
});
export type OpenedGate = z.infer<typeof OpenedGate>;

/** The part of `GET /v1/approvals/{id}` an adapter reads: status, the decision and the args to run. */
export const GateStatusView = z.object({
  request_id: z.string().min(1),
  status: z.string().min(1),
  payload_sha256: z.string(),
  expires_at: z.string().optional(),
  /** Args that will run: the requested ones or a reviewer's modification. */
  final_args: z.record(z.string(), z.unknown()).optional(),
  final_args_sha256: z.string().optional(),
  /** The reviewer who modified the args, when one did. */
  modified_by: z.string().optional(),
  decision: z
    .object({
      decision: z.string(),
      reviewer_id: z.string(),
      reason: z.string().optional(),
      note: z.string().optional(),
    })
    .optional(),
  /** Why the request is in its terminal state (expiry, cancellation, drift). */
  status_reason: z.string().optional(),
  /** True when no gate worker answered and the status comes from visibility. */
  stale: z.boolean().optional(),
});
export type GateStatusView = z.infer<typeof GateStatusView>;

/** What `POST /v1/approvals/{id}/consume` answers, exactly once per request. */
export const ConsumedGate = z.object({
  request_id: z.string(),
  args: z.record(z.string(), z.unknown()),
  args_sha256: z.string(),
  payload_sha256: z.string(),
  consumed_at: z.string(),
});
export type ConsumedGate = z.infer<typeof ConsumedGate>;

/**
 * How an adapter reaches the gate server. `httpGate` (the HTTP API with an agent key) is
 * what an agent process normally uses; `clientGate` wraps an in-process `GateClient`
 * talking to Temporal directly. Both throw `GateRequestError` for the server's refusals.
 */
export interface GateTransport {
  /** The agent id the server knows this caller by (the agent key's id). */
  readonly agentId: string;
  /** The agent key's tenant, when it is not the default tenant (it is part of gate ids). */
  readonly tenant?: string;
  /** Opens a gate, or returns the one this idempotency key already opened (same payload). */
  create(body: Record<string, unknown>, idempotencyKey: string): Promise<OpenedGate>;
  /** The gate's current state; throws 404 when there is none. */
  get(requestId: string): Promise<GateStatusView>;
  /** Takes the approved args, once; throws 409 when not approved or already taken. */
  consume(requestId: string): Promise<ConsumedGate>;
}
