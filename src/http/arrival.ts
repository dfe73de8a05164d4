import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from './env.js';

/**
 * `c.var.arrivedAt`: when the request reached the server. A waiting call's limit counts from here, so
 * time spent reading the body and checking the token falls inside the answer's deadline, not before it.
 */
export function arrival(): MiddlewareHandler<AppEnv> {
  return (c, next) => {
    c.set('arrivedAt', Date.now());
    return next();
  };
}
