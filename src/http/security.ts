import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { jsonError } from './errors.js';
import { withDefaultHeaders } from './node-response.js';

/**
 * Headers for every response. Pages load nothing from elsewhere (own stylesheet only), may not be
 * framed (clickjacking), and send no Referer (OAuth codes and state travel in URLs).
 * `form-action` is deliberately not set here: browsers apply it to the redirect that follows a form
 * post, and the consent form must be able to redirect to the client's callback; the consent page sets
 * its own policy, which is why a header a route set is never overwritten.
 */
export const SECURITY_HEADERS: ReadonlyArray<readonly [string, string]> = [
  [
    'Content-Security-Policy',
    "default-src 'none'; style-src 'self'; img-src 'self' data:; script-src 'self'; connect-src 'self'; base-uri 'none'; frame-ancestors 'none'",
  ],
  ['Cross-Origin-Opener-Policy', 'same-origin'],
  ['Cross-Origin-Resource-Policy', 'same-origin'],
  ['Origin-Agent-Cluster', '?1'],
  ['Referrer-Policy', 'no-referrer'],
  ['Strict-Transport-Security', 'max-age=31536000; includeSubDomains'],
  ['X-Content-Type-Options', 'nosniff'],
  ['X-DNS-Prefetch-Control', 'off'],
  ['X-Download-Options', 'noopen'],
  ['X-Frame-Options', 'DENY'],
  ['X-Permitted-Cross-Domain-Policies', 'none'],
  ['X-XSS-Protection', '0'],
];

/** Sets SECURITY_HEADERS on every response unless the route set its own (src/http/node-response.ts). */
export function securityHeaders(): MiddlewareHandler {
  return (c, next) => withDefaultHeaders(c, SECURITY_HEADERS, next);
}

export function limitBody(maxSize: number): MiddlewareHandler {
  const streamed = bodyLimit({
    maxSize,
    onError: (c) => tooLarge(c, maxSize),
  });
  // Decided from the headers when they can decide it. Hono's bodyLimit reads `c.req.raw.body` first,
  // which makes @hono/node-server build a full web Request and stream for every request (GETs too)
  // and loses its fast body path: a quarter of the CPU of a /healthz. In HTTP/1.1 a request without
  // Transfer-Encoding has exactly Content-Length bytes of body (none when absent: Node's parser
  // enforces the framing), so only chunked bodies need counting as they stream.
  return async (c, next) => {
    if (c.req.header('transfer-encoding') !== undefined) return streamed(c, next);
    const length = c.req.header('content-length');
    if (length !== undefined && Number(length) > maxSize) return tooLarge(c, maxSize);
    await next();
  };
}

/**
 * The 413 in the form its sender reads: a JSON-RPC error on /mcp (an MCP client reads nothing else), a
 * short page for a browser's form, the JSON error body elsewhere. Each names the limit.
 */
function tooLarge(c: Context, maxSize: number) {
  // The unread rest of the body makes the connection unusable: say so, or a keep-alive client
  // sends its next request into a socket we are about to drop (RFC 9112 §9.6).
  c.header('Connection', 'close');
  const message = `The request body is larger than ${maxSize} bytes (BODY_LIMIT_BYTES).`;
  const path = c.req.path;
  if (path === '/mcp' || path.startsWith('/mcp/'))
    return c.json(
      { jsonrpc: '2.0', error: { code: -32600, message: `Invalid Request: ${message}` }, id: null },
      413,
    );
  if (FORM.test(c.req.header('content-type') ?? '') && /\btext\/html\b/.test(c.req.header('accept') ?? ''))
    return c.html(
      `<!doctype html><html lang="en"><meta charset="utf-8"><title>Form too large</title><h1>Form too large</h1><p>${message} Go back, shorten what you entered and send the form again.</p></html>`,
      413,
    );
  return jsonError(c, 413, 'payload_too_large', message);
}

const FORM = /^(application\/x-www-form-urlencoded|multipart\/form-data)\b/i;
