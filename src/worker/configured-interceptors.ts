import path from 'node:path';
import type { WorkerInterceptors } from '@temporalio/worker';

/** The setting that names a module of worker interceptors for the `gate` processes. */
export const INTERCEPTORS_MODULE_ENV = 'GATE_WORKER_INTERCEPTORS_MODULE';

/**
 * The interceptors the `gate` processes (`gate worker`, `gate dev`) add to their worker:
 * those exported as `interceptors` (the SDK's `WorkerInterceptors`: activity interceptor
 * factories, workflow interceptor modules) by the module named in
 * `GATE_WORKER_INTERCEPTORS_MODULE`, loaded as GATE_DOMAINS_MODULE is (src/domain/configured.ts);
 * none when unset. A library user passes `interceptors` to createGateWorker instead.
 * Throws when the module exports no `interceptors` object.
 */
export function configuredInterceptors(env: NodeJS.ProcessEnv = process.env): WorkerInterceptors | undefined {
  const named = env[INTERCEPTORS_MODULE_ENV];
  if (!named) return undefined;
  const file = path.resolve(named);
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a user's module, named at run time
  const mod = require(file) as { interceptors?: unknown; default?: { interceptors?: unknown } };
  const interceptors = mod.interceptors ?? mod.default?.interceptors;
  if (typeof interceptors !== 'object' || interceptors === null || Array.isArray(interceptors))
    throw new Error(`${INTERCEPTORS_MODULE_ENV}=${file} must export an "interceptors" object (WorkerInterceptors)`);
  return interceptors as WorkerInterceptors;
}
