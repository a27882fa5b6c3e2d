import { ServiceError } from '@temporalio/client';
import { NamespaceNotFoundError } from '@temporalio/common';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { MAX_PAYLOAD_BYTES } from '../common/evidence';
import { MAX_JSON_DEPTH, jsonDepth, unrepresentableNumbers } from '../common/json-limits';
import { GateError, snakeCase } from '../client/gate-error';
import { isConnectionError, StoreUnavailableError } from '../store/unavailable';

/** Fastify's raw body limit: the 64 KB payload plus room for the envelope (ttl, executor…). The payload itself is checked as canonical JSON. */
export const BODY_LIMIT_BYTES = MAX_PAYLOAD_BYTES + 8 * 1024;

/** Longest path parameter the router takes; ids are at most 200 characters, so longer ones can only be 404. */
export const MAX_PARAM_LENGTH = 256;

/**
 * Errors the router raises before any route or hook runs (a path parameter over
 * MAX_PARAM_LENGTH, a malformed percent-escape), answered in the API's error shape
 * instead of Fastify's own body.
 */
export function frameworkErrors(
  err: { code?: string; message: string },
  _req: FastifyRequest,
  reply: FastifyReply,
): void {
  const e =
    err.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? new GateError(414, 'uri_too_long', `a path segment is over ${MAX_PARAM_LENGTH} characters; ids are at most 200`)
      : err.code === 'FST_ERR_BAD_URL'
        ? new GateError(400, 'bad_url', 'the URL has a malformed percent-escape')
        : new GateError(400, 'bad_request', 'the request could not be routed');
  void reply.code(e.status).send(e.toJSON());
}

/**
 * Any thrown value as the `{ error: { code, message, details? } }` the API promises.
 * GateError passes through; so does any error of the same shape (`status` + `code`, such
 * as a router's own errors). Fastify's own 4xx keep their status. Anything else is a
 * 500 whose details stay in the log, or 503 when Temporal itself did not answer.
 */
export function toHttpError(err: unknown): GateError {
  if (err instanceof GateError) return err;
  const e = (err ?? {}) as {
    status?: unknown;
    statusCode?: unknown;
    code?: unknown;
    message?: unknown;
    details?: unknown;
  };
  if (typeof e.status === 'number' && e.status >= 400 && e.status < 600 && typeof e.code === 'string') {
    return new GateError(e.status, e.code, String(e.message ?? e.code), e.details);
  }
  if (e.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    return new GateError(
      413,
      'payload_too_large',
      `request body is over ${BODY_LIMIT_BYTES} bytes; evidence payloads are limited to ${MAX_PAYLOAD_BYTES} bytes`,
    );
  }
  if (e.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    return new GateError(415, 'unsupported_media_type', 'send the body as JSON with "Content-Type: application/json"');
  }
  if (typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
    const code = typeof e.code === 'string' ? snakeCase(e.code.replace(/^FST_ERR_/, '').toLowerCase()) : 'bad_request';
    return new GateError(e.statusCode, code, String(e.message ?? 'bad request'));
  }
  if (err instanceof ServiceError)
    return new GateError(503, 'temporal_unavailable', `Temporal did not answer: ${err.message}`);
  // Also what a server answers for a while after its database came back (its namespace cache
  // is being refilled), besides a wrong TEMPORAL_NAMESPACE: either way, nothing was done.
  if (err instanceof NamespaceNotFoundError)
    return new GateError(
      503,
      'temporal_unavailable',
      `Temporal does not know namespace '${err.namespace}' right now: retry shortly, and if it persists check TEMPORAL_NAMESPACE`,
    );
  const store = storeOutage(err);
  if (store) return new GateError(503, 'database_unavailable', `${store.message}; retry shortly`);
  // A lost connection that no store wrapper named (a driver error from a path outside the stores).
  if (isConnectionError(err))
    return new GateError(503, 'service_unavailable', 'a backing service did not answer; retry shortly');
  return new GateError(500, 'internal', 'internal error; the server log has the details');
}

/** The StoreUnavailableError `err` is, or wraps as its `cause` (a few levels deep). */
function storeOutage(err: unknown): StoreUnavailableError | undefined {
  let e: unknown = err;
  for (let depth = 0; depth < 5 && e !== null && typeof e === 'object'; depth++) {
    if (e instanceof StoreUnavailableError) return e;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * JSON only (other media types get 415, not a string body): an empty body is no body,
 * unparseable JSON a 400 that says where, `__proto__` keys refused, nesting deeper than
 * MAX_JSON_DEPTH refused before parsing, and numbers that would not run as sent
 * (`1e400`, integers past 2^53) a 422 naming their paths.
 */
export function installJsonParser(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    const text = String(body);
    if (text.trim() === '') return done(null, undefined);
    if (jsonDepth(text) > MAX_JSON_DEPTH) {
      return done(new GateError(422, 'too_deep', `request body nests deeper than ${MAX_JSON_DEPTH} levels`), undefined);
    }
    let value: unknown;
    try {
      value = JSON.parse(text, (k, v: unknown) => {
        if (k === '__proto__') throw new SyntaxError('a key named "__proto__" is not accepted');
        return v;
      });
    } catch (err) {
      return done(
        new GateError(400, 'malformed_json', `request body is not valid JSON: ${(err as Error).message}`),
        undefined,
      );
    }
    const bad = unrepresentableNumbers(value);
    if (bad.length > 0) {
      return done(
        new GateError(
          422,
          'unrepresentable_number',
          `request body has numbers that cannot be taken as sent: ${bad
            .slice(0, 5)
            .map((b) => `${b.path} ${b.message}`)
            .join('; ')}`,
          bad,
        ),
        undefined,
      );
    }
    done(null, value);
  });
}

/**
 * Seconds a client should wait before sending the same call again: what a shed create was
 * told (`details.retry_after_s`), and 1 for the other `gate_busy` answers.
 */
export function retryAfterOf(e: GateError): number | undefined {
  if (e.status !== 503) return undefined;
  const given = (e.details as { retry_after_s?: unknown } | undefined)?.retry_after_s;
  if (typeof given === 'number' && Number.isInteger(given) && given > 0) return given;
  return e.code === 'gate_busy' ? 1 : undefined;
}

/** Error and not-found handlers that always answer in the API's error format. */
export function installErrorHandlers(app: FastifyInstance): void {
  app.setErrorHandler((err, req, reply) => {
    const e = toHttpError(err);
    if (e.status >= 500) req.log.error({ err }, 'request failed');
    if (e.status === 401) void reply.header('www-authenticate', 'Bearer');
    const retryAfter = retryAfterOf(e);
    if (retryAfter !== undefined) void reply.header('retry-after', String(retryAfter));
    void reply.code(e.status).send(e.toJSON());
  });
  app.setNotFoundHandler((req, reply) => {
    void reply
      .code(404)
      .send({ error: { code: 'not_found', message: `no route ${req.method} ${req.url.split('?')[0]}` } });
  });
}
