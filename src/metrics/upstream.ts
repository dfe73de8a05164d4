import { Histogram } from 'prom-client';
import { LATENCY_BUCKETS, registry } from './registry.js';

export const upstreamRequestDuration = new Histogram({
  name: 'upstream_request_duration_seconds',
  help: 'Calls to the upstream API, by host and status (HTTP status, or timeout / network_error).',
  labelNames: ['host', 'status'] as const,
  buckets: LATENCY_BUCKETS,
  registers: [registry],
});

/** Records one upstream call; `host` is the configured host (bounded: two of them), never a full URL. */
export function observeUpstream(
  host: string,
  status: number | 'timeout' | 'network_error',
  seconds: number,
): void {
  upstreamRequestDuration.labels(host, String(status)).observe(seconds);
}
