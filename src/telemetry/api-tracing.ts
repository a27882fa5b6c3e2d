import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import type { FastifyInstance, FastifyRequest } from 'fastify';

const SPANS = new WeakMap<FastifyRequest, Span>();

/**
 * One server span per HTTP request, a child of the caller's W3C `traceparent` when it sends
 * one, so an agent's create, decide and consume calls (and the workflow and activity spans
 * under them) land in the agent's own trace. The rest of the request runs inside the span's
 * context: the Temporal client interceptor parents its spans on it.
 */
export function requestSpans(app: FastifyInstance, tracer: Tracer): void {
  app.addHook('onRequest', (req, _reply, done) => {
    const parent = propagation.extract(ROOT_CONTEXT, req.headers);
    const route = req.routeOptions.url ?? 'unmatched';
    const span = tracer.startSpan(
      `${req.method} ${route}`,
      { kind: SpanKind.SERVER, attributes: { 'http.request.method': req.method, 'http.route': route } },
      parent,
    );
    SPANS.set(req, span);
    context.with(trace.setSpan(parent, span), done); // handlers and their awaits inherit it
  });
  app.addHook('onResponse', async (req, reply) => {
    const span = SPANS.get(req);
    if (!span) return;
    span.setAttribute('http.response.status_code', reply.statusCode);
    if (reply.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  });
}
