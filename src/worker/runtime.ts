import { DefaultLogger, Runtime, type LogLevel } from '@temporalio/worker';
import { TIME_TO_DECISION_BUCKETS, GateMetric } from '../common/metrics-catalog';

export interface WorkerRuntimeOptions {
  /** `host:port` for the Prometheus endpoint (`GATE_WORKER_METRICS_ADDRESS`); no endpoint when unset. */
  metricsAddress?: string;
  /** Core and worker log level (`GATE_LOG_LEVEL`, default warn). */
  logLevel?: string;
}

const LEVELS: readonly LogLevel[] = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'];

/**
 * Installs the process's Temporal runtime once, before any worker connection: its logger
 * and, when asked, the Prometheus endpoint that serves the SDK's own metrics (task
 * latencies, slots, polls, sticky cache) together with the gate's lifecycle metrics that
 * workflow code records through the workflow metricMeter. Counters carry `_total` and
 * durations are in seconds, as Prometheus expects. Returns false when a runtime was
 * already installed in this process (tests, `gate dev` with several parts).
 */
export function installWorkerRuntime(opts: WorkerRuntimeOptions = {}): boolean {
  const wanted = (opts.logLevel ?? 'warn').toUpperCase() as LogLevel;
  const logger = new DefaultLogger(LEVELS.includes(wanted) ? wanted : 'WARN');
  try {
    Runtime.install({
      logger,
      ...(opts.metricsAddress
        ? {
            telemetryOptions: {
              metrics: {
                prometheus: {
                  bindAddress: opts.metricsAddress,
                  countersTotalSuffix: true,
                  useSecondsForDurations: true,
                  histogramBucketOverrides: { [GateMetric.timeToDecision.name]: TIME_TO_DECISION_BUCKETS },
                },
              },
            },
          }
        : {}),
    });
    return true;
  } catch {
    return false; // already installed: keep that one
  }
}
