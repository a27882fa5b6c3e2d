import type { Client } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import type { GateClient } from '../client/gate-client';
import type { DomainRegistry } from '../domain/registry';
import type { AuditStore } from '../store/audit-store';
import type { Db } from '../store/db';
import type { KeyStore } from '../store/key-store';
import type { RequireKey } from './auth';

/** What an extra router gets: the auth hooks and the shared services. */
export interface RouteContext {
  /** `onRequest` hook: `requireKey('agent')`, `requireKey('reviewer')`, or `requireKey()` for either. */
  requireKey: RequireKey;
  gate: GateClient;
  keys: KeyStore;
  audit: AuditStore;
  /** The Temporal client, when the server was given one (always under `startApiServer`). */
  temporal?: Client;
  /** The store the API opened (domain tables live there too). */
  db?: Db;
  /** The domains this API serves (their names are what `POST /v1/runs` accepts). */
  domains: DomainRegistry;
}

/**
 * Hook for routes owned elsewhere (`/v1/runs`, `/v1/domains/...`). Registered as a fastify
 * plugin after the approval routes, inheriting the JSON parser and the error handler: throw
 * GateError (or any error with `status` and `code`) and the caller gets `{ error: {...} }`.
 *
 * @example extraRoutes: (app, { requireKey }) => app.post('/v1/runs', { onRequest: requireKey('agent') }, handler)
 */
export type ExtraRoutes = (app: FastifyInstance, ctx: RouteContext) => void | Promise<void>;
