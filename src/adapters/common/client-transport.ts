import type { GateClient } from '../../client/gate-client';
import { GateError } from '../../client/gate-error';
import { DEFAULT_TENANT } from '../../common/tenant';
import { retryShed } from '../../client/shed-retry';
import { GateRequestError, shedOf } from './errors';
import { ConsumedGate, GateStatusView, OpenedGate, type GateTransport } from './transport';

/** The methods of `GateClient` an adapter uses (a type, so importing an adapter loads no Temporal client). */
export type GateClientLike = Pick<GateClient, 'create' | 'get' | 'consume'>;

/**
 * An in-process `GateClient` (Temporal directly, no HTTP API): for services that already
 * run the gate client, such as a worker host. `agentId` is who the gates are opened as;
 * no key checks it, so use this only inside a trusted process.
 */
export function clientGate(
  client: GateClientLike,
  options: { agentId: string; tenant?: string; /** As `HttpGateOptions.shedWaitMs`. */ shedWaitMs?: number },
): GateTransport {
  const { agentId, tenant } = options;
  const scope = { tenant: tenant ?? DEFAULT_TENANT, agentId };
  return {
    agentId,
    ...(tenant ? { tenant } : {}),
    create: (body, idempotencyKey) =>
      retryShed(
        () =>
          translate(async () =>
            OpenedGate.parse(
              (await client.create(body, { agentId, idempotencyKey, ...(tenant ? { tenant } : {}) })).request,
            ),
          ),
        shedOf,
        { maxWaitMs: options.shedWaitMs },
      ),
    get: (id) => translate(async () => GateStatusView.parse(await client.get(id, scope))),
    consume: (id) => translate(async () => ConsumedGate.parse(await client.consume(id, agentId, scope))),
  };
}

/** GateError (the client's deliberate refusals) becomes the adapters' GateRequestError. */
async function translate<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    // Branded: a GateError from another copy of the package (the caller's own client) counts too.
    if (err instanceof GateError) throw new GateRequestError(err.status, err.code, err.message, err.details);
    throw err;
  }
}
