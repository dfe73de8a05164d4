import { randomUUID } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from './env.js';
import { withDefaultHeaders } from './node-response.js';

const HEADER = 'X-Request-Id';
/** A caller's own id is kept when it is short and plain (it lands in logs and a response header). */
const ACCEPTABLE = /^[\w\-=]{1,255}$/;

/**
 * `c.var.requestId` and an `X-Request-Id` response header on every response, the MCP handler's raw
 * `Response`s included (hono/request-id sets the header through the context, which a route that returns
 * its own `Response` drops). A client-sent id is reused so a proxy's id follows the request through.
 * `c.var.arrivedAt` too, since this is the first middleware: a waiting call's limit counts from it, so
 * time spent reading the body and checking the token falls inside the answer's deadline, not before it
 * (here rather than in a middleware of its own: each one is a step of every request).
 */
export function requestId(): MiddlewareHandler<AppEnv> {
  return (c, next) => {
    const given = c.req.header(HEADER);
    const id = given !== undefined && ACCEPTABLE.test(given) ? given : randomUUID();
    c.set('requestId', id);
    c.set('arrivedAt', Date.now());
    return withDefaultHeaders(c, [[HEADER, id]], next);
  };
}
