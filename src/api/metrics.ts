import type { FastifyInstance } from 'fastify';
import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import { APPROVAL_STATUSES, type ApprovalStatus } from '../common/lifecycle';
import { GateMetric, labelValue, type MetricSpec } from '../common/metrics-catalog';

export interface ApiMetricsOptions {
  /** Gates in one status, from visibility; none means no `gate_queue_depth`. */
  countGates?: (status: ApprovalStatus) => Promise<number>;
  /** How long one set of counts is served before the next scrape recounts (default 10 s). */
  queueDepthTtlMs?: number;
  /** Adds Node's process metrics (`process_*`, `nodejs_*`); default true. */
  processMetrics?: boolean;
}

const counter = <L extends string>(r: Registry, m: MetricSpec & { labels: readonly L[] }): Counter<L> =>
  new Counter({ name: m.name, help: m.help, labelNames: m.labels, registers: [r] });

/**
 * The API's `/metrics` (prom-client, one registry per server): what this process saw, and
 * the queue by status from visibility. The visibility counts are cached for a few seconds
 * and refreshed by one request at a time, so a burst of scrapes costs Temporal at most one
 * set of count calls per TTL.
 */
export class ApiMetrics {
  readonly registry = new Registry();
  readonly http = counter(this.registry, GateMetric.apiHttpRequests);
  readonly creates = counter(this.registry, GateMetric.apiCreates);
  readonly decisions = counter(this.registry, GateMetric.apiDecisions);
  readonly consumes = counter(this.registry, GateMetric.apiConsumes);
  /** Registered after the gauge, whose collect has started the count by the time this one waits for it. */
  private readonly queueErrors: Counter<string>;
  private counted = 0;
  private counting: Promise<void> | undefined;
  /** Visibility count calls made so far (tests check the cache with it). */
  countCalls = 0;

  constructor(private readonly opts: ApiMetricsOptions = {}) {
    if (opts.processMetrics !== false) collectDefaultMetrics({ register: this.registry });
    if (opts.countGates) {
      const refresh = (g: Gauge<string>): Promise<void> => this.refreshQueue(g);
      new Gauge({
        name: GateMetric.queueDepth.name,
        help: GateMetric.queueDepth.help,
        labelNames: GateMetric.queueDepth.labels,
        registers: [this.registry],
        async collect() {
          await refresh(this); // prom-client calls collect with the gauge as `this`
        },
      });
    }
    const inFlight = (): Promise<void> | undefined => this.counting;
    this.queueErrors = new Counter({
      name: GateMetric.queueDepthErrors.name,
      help: GateMetric.queueDepthErrors.help,
      registers: [this.registry],
      async collect() {
        await inFlight(); // the same scrape shows a count that just failed
      },
    });
  }

  /** Counts one created or replayed request. */
  created(action: string | undefined, created: boolean): void {
    this.creates.inc({ action: labelValue(action), result: created ? 'created' : 'replayed' });
  }

  /** Text exposition for a scrape. */
  async scrape(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }

  private async refreshQueue(gauge: Gauge<string>): Promise<void> {
    const ttl = this.opts.queueDepthTtlMs ?? 10_000;
    if (Date.now() - this.counted < ttl) return; // fresh enough: serve the cached values
    this.counting ??= (async () => {
      try {
        const counts = await Promise.all(
          APPROVAL_STATUSES.map(async (s) => {
            this.countCalls++;
            return [s, await this.opts.countGates!(s)] as const;
          }),
        );
        for (const [status, n] of counts) gauge.set({ status }, n);
        this.counted = Date.now();
      } catch {
        this.queueErrors.inc(); // Temporal down: keep the last values, the scrape still answers
      } finally {
        this.counting = undefined;
      }
    })();
    await this.counting;
  }
}

/** `GET /metrics` and the per-request counter. Unauthenticated, like most scrape targets: bind the API to a private address. */
export function metricsRoutes(app: FastifyInstance, metrics: ApiMetrics): void {
  app.addHook('onResponse', async (req, reply) => {
    const route = req.routeOptions.url ?? 'unmatched';
    if (route === '/metrics') return;
    metrics.http.inc({ method: req.method, route, status: String(reply.statusCode) });
  });
  app.get('/metrics', async (_req, reply) => {
    const { contentType, body } = await metrics.scrape();
    void reply.type(contentType);
    return body;
  });
}
