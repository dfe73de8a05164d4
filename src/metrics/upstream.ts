import { Histogram } from 'prom-client';
import { LATENCY_BUCKETS, registry, seriesCache } from './registry.js';

export const upstreamRequestDuration = new Histogram({
  name: 'upstream_request_duration_seconds',
  help: 'Calls to the upstream API (each attempt), by host (search, agent) and HTTP status or failure kind (timeout, network, aborted).',
  labelNames: ['host', 'status'] as const,
  buckets: LATENCY_BUCKETS,
  registers: [registry],
});

/**
 * Records one upstream attempt. `host` is which upstream (search, agent), never a URL; `status` the
 * HTTP status or the failure kind (timeout, network, aborted, …): both bounded sets.
 */
export function observeUpstream(host: string, status: number | string, seconds: number): void {
  series(host, String(status)).observe(seconds);
}

const series = seriesCache((...values) => upstreamRequestDuration.labels(...values));
