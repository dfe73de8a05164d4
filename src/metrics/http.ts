import type { MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
import { Counter, Histogram } from 'prom-client';
import { LATENCY_BUCKETS, registry, seriesCache } from './registry.js';

export const httpRequests = new Counter({
  name: 'http_requests_total',
  help: 'HTTP requests served, by method, matched route pattern and status code.',
  labelNames: ['method', 'route', 'status'] as const,
  registers: [registry],
});

export const httpRequestDuration = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'Time to produce the response (streamed bodies: until the handler returned), by method and route.',
  labelNames: ['method', 'route'] as const,
  buckets: LATENCY_BUCKETS,
  registers: [registry],
});

/** Methods kept as label values; anything else is counted as OTHER (label values must stay bounded). */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

const counted = seriesCache((...values) => httpRequests.labels(...values));
const timed = seriesCache((...values) => httpRequestDuration.labels(...values));

/**
 * Counts and times every request under its matched route pattern (`routePath(c)`, e.g.
 * `/oauth/clients/:id`), never the raw path: raw paths are unbounded (ids, probes for random URLs) and
 * every distinct label value lives in memory forever. Unmatched requests fall under the catch-all
 * pattern of this middleware (`/*`).
 */
export function httpMetrics(): MiddlewareHandler {
  return async (c, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      const method = METHODS.has(c.req.method) ? c.req.method : 'OTHER';
      // After next(), the current route index is the handler that answered: its pattern, not the
      // path. (hono/route's routePath is what the deprecated c.req.routePath returns.)
      const route = routePath(c);
      counted(method, route, String(c.res.status)).inc();
      timed(method, route).observe((performance.now() - started) / 1000);
    }
  };
}
