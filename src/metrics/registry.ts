import { collectDefaultMetrics, Registry } from 'prom-client';

/**
 * The process's one metrics registry (not prom-client's global one, so nothing a dependency registers
 * leaks into /metrics). Metrics are process-wide, like the process they describe: several apps built
 * in one process (tests) share them.
 */
export const registry = new Registry();

/** Node's own metrics: CPU, memory, heap, event-loop lag, open handles, GC. */
collectDefaultMetrics({ register: registry });

/**
 * A metric's labelled series, each made once per label values and kept: prom-client hashes the label
 * values into a child lookup on every labels() call, which the per-request metrics would pay each time.
 * Only for label sets that are bounded (route patterns, status codes, hosts), as every label set must be.
 */
export function seriesCache<S>(labels: (...values: string[]) => S): (...values: string[]) => S {
  const made = new Map<string, S>();
  return (...values) => {
    const key = values.join('\u0000');
    let series = made.get(key);
    if (series === undefined) {
      series = labels(...values);
      made.set(key, series);
    }
    return series;
  };
}

/** Seconds, for request-scale latencies: 5 ms to 2 minutes (waiting tool calls run long). */
export const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
