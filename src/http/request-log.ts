import type { MiddlewareHandler } from 'hono';
import type { Logger } from '../logger.js';
import type { AppEnv } from './env.js';

/**
 * One log line per request with its id; a child logger on the context so every line written while
 * serving it carries the same id. Only the path is logged, never the query (it can hold OAuth codes).
 */
export function requestLog(logger: Logger): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = performance.now();
    const log = logger.child({ requestId: c.get('requestId') });
    c.set('log', log);
    await next();
    const durationMs = Math.round((performance.now() - started) * 100) / 100;
    const status = c.res.status;
    const line = { method: c.req.method, path: c.req.path, status, durationMs };
    if (status >= 500) log.error(line, 'request failed');
    else log.info(line, 'request');
  };
}
