import { trace, type Tracer } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { Resource, envDetectorSync } from '@opentelemetry/resources';
import {
  BatchSpanProcessor,
  ConsoleSpanExporter,
  SimpleSpanProcessor,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';

/** The exporters named by OTEL_TRACES_EXPORTER that this build can start. */
type ExporterName = 'otlp' | 'console';

/**
 * Which exporters the standard OTEL_* variables ask for; none means tracing is off (the
 * default). On with `OTEL_TRACES_EXPORTER=otlp` (OTLP over HTTP: `OTEL_EXPORTER_OTLP_ENDPOINT`
 * or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, `OTEL_EXPORTER_OTLP_HEADERS`, read by the exporter),
 * `console`, or both comma-separated; also on (otlp) when only an OTLP endpoint is set.
 * `OTEL_SDK_DISABLED=true` or `none` turns it off.
 */
export function tracingExporters(env: NodeJS.ProcessEnv = process.env): ExporterName[] {
  if ((env.OTEL_SDK_DISABLED ?? '').toLowerCase() === 'true') return [];
  const named = (env.OTEL_TRACES_EXPORTER ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  if (named.length === 0)
    return env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ? ['otlp'] : [];
  const unknown = named.filter((n) => !['otlp', 'console', 'none'].includes(n));
  if (unknown.length > 0)
    throw new Error(`OTEL_TRACES_EXPORTER=${env.OTEL_TRACES_EXPORTER}: unsupported ${unknown.join(', ')}`);
  return named.filter((n): n is ExporterName => n === 'otlp' || n === 'console');
}

/** A process's tracing: what the Temporal interceptors and the API's request spans use. */
export interface Tracing {
  readonly resource: Resource;
  /** One processor over all exporters, also handed to the worker's workflow span sink. */
  readonly spanProcessor: SpanProcessor;
  readonly tracer: Tracer;
  /** Flushes and stops the exporters. */
  shutdown(): Promise<void>;
}

/** Fans one span out to several processors (the workflow sink takes a single one). */
class MultiSpanProcessor implements SpanProcessor {
  constructor(private readonly all: SpanProcessor[]) {}
  onStart(...a: Parameters<SpanProcessor['onStart']>): void {
    for (const p of this.all) p.onStart(...a);
  }
  onEnd(...a: Parameters<SpanProcessor['onEnd']>): void {
    for (const p of this.all) p.onEnd(...a);
  }
  async forceFlush(): Promise<void> {
    await Promise.all(this.all.map((p) => p.forceFlush()));
  }
  async shutdown(): Promise<void> {
    await Promise.all(this.all.map((p) => p.shutdown()));
  }
}

let current: Tracing | undefined;

/**
 * Starts tracing for this process when the environment asks for it (or when `exporter` is
 * given, as tests do with an in-memory one), registering the global tracer provider with
 * the AsyncLocalStorage context manager and W3C trace context propagation. Returns
 * undefined when tracing is off. `serviceName` is the default for OTEL_SERVICE_NAME.
 * Started once per process; later calls return the same one.
 */
export function startTracing(
  serviceName: string,
  opts: { env?: NodeJS.ProcessEnv; exporter?: SpanExporter } = {},
): Tracing | undefined {
  if (current) return current;
  const env = opts.env ?? process.env;
  const processors: SpanProcessor[] = opts.exporter ? [new SimpleSpanProcessor(opts.exporter)] : [];
  for (const name of opts.exporter ? [] : tracingExporters(env))
    processors.push(
      name === 'otlp'
        ? new BatchSpanProcessor(new OTLPTraceExporter())
        : new SimpleSpanProcessor(new ConsoleSpanExporter()),
    );
  if (processors.length === 0) return undefined;
  // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES (the env detector) win over the default name.
  const resource = new Resource({ 'service.name': serviceName }).merge(envDetectorSync.detect());
  const spanProcessor = processors.length === 1 ? processors[0]! : new MultiSpanProcessor(processors);
  const provider = new NodeTracerProvider({ resource, spanProcessors: [spanProcessor] });
  provider.register();
  current = {
    resource,
    spanProcessor,
    tracer: trace.getTracer('approval-gate'),
    async shutdown() {
      await provider.shutdown();
    },
  };
  return current;
}

/** The tracing this process started, if any. */
export function activeTracing(): Tracing | undefined {
  return current;
}
