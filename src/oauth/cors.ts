import type { MiddlewareHandler } from 'hono';

/**
 * CORS for the endpoints browser-based clients call from their own origin (metadata, registration,
 * token, revocation): any origin, no credentials, so no Vary on Origin. A preflight (any OPTIONS)
 * is answered 204 with the methods and the request headers allowed, and `maxAgeSeconds` when given.
 *
 * What hono/cors does with `origin: '*'`, but the header goes on the answer through `c.header()`
 * before the route runs. hono/cors writes it into `c.res` first, and a route's answer then replaces
 * that placeholder the slow way: Hono builds a second Response around the first one's body as a web
 * stream, which @hono/node-server reads back chunk by chunk (bench/profile-token.ts: about 5 % of the
 * gateway's CPU per refresh grant).
 */
export function anyOriginCors(options: {
  methods: readonly string[];
  /** Request headers a preflight may ask for (default: whatever it asks for). */
  headers?: readonly string[];
  maxAgeSeconds?: number;
}): MiddlewareHandler {
  const methods = options.methods.join(',');
  const allowedHeaders = options.headers?.join(',');
  return async (c, next) => {
    if (c.req.method === 'OPTIONS') {
      const answer: Record<string, string> = {
        'Access-Control-Allow-Origin': '*',
        'Access-Control-Allow-Methods': methods,
      };
      if (options.maxAgeSeconds !== undefined)
        answer['Access-Control-Max-Age'] = String(options.maxAgeSeconds);
      const requested = c.req.header('access-control-request-headers');
      if (allowedHeaders) answer['Access-Control-Allow-Headers'] = allowedHeaders;
      else if (requested) {
        answer['Access-Control-Allow-Headers'] = requested;
        answer.Vary = 'Access-Control-Request-Headers';
      }
      return c.body(null, 204, answer);
    }
    c.header('Access-Control-Allow-Origin', '*');
    await next();
  };
}
