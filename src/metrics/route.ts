import { Hono } from 'hono';
import type { Store } from '../db/store/index.js';
import { jsonError } from '../http/errors.js';
import { safeEqual } from '../security/tokens.js';
import { measureDatabase } from './database.js';
import { httpMetrics } from './http.js';
// Every metric registers itself when its module loads: load them all so /metrics always lists each.
import './index.js';
import { registry } from './registry.js';

export interface MetricsOptions {
  /** METRICS_TOKEN: the bearer secret a scraper must send. Null: /metrics does not exist (404). */
  token: string | null;
  db: Store;
}

/**
 * Request metrics for every route, and `GET /metrics` in the Prometheus text format behind a bearer
 * secret. Mount it before the other routes so its middleware sees every request.
 */
export function metricsRoutes(options: MetricsOptions): Hono {
  const app = new Hono();
  app.use(httpMetrics());
  app.get('/metrics', async (c) => {
    // Unconfigured: answer exactly as for any unknown path, so nothing reveals the endpoint.
    if (options.token === null) return jsonError(c, 404, 'not_found', `Nothing is served at ${c.req.path}.`);
    const header = c.req.header('Authorization') ?? '';
    const presented = /^Bearer +(.+)$/i.exec(header)?.[1] ?? '';
    // Constant time: compares SHA-256 digests, so neither content nor length leaks through timing.
    if (!safeEqual(presented, options.token)) {
      return c.json({ error: 'unauthorized', message: 'Send the metrics token as a Bearer token.' }, 401, {
        'WWW-Authenticate': 'Bearer realm="metrics"',
      });
    }
    await measureDatabase(options.db);
    return c.body(await registry.metrics(), 200, {
      'Content-Type': registry.contentType,
      'Cache-Control': 'no-store',
    });
  });
  return app;
}
