import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { secureHeaders } from 'hono/secure-headers';
import { jsonError } from './errors.js';

/**
 * Headers for every response. Pages load nothing from elsewhere (own stylesheet only), may not be
 * framed (clickjacking), and send no Referer (OAuth codes and state travel in URLs).
 * `form-action` is deliberately not set here: browsers apply it to the redirect that follows a form
 * post, and the consent form must be able to redirect to the client's callback; the consent page sets
 * its own policy, which is why headers a route set are not overwritten.
 */
export function securityHeaders(): MiddlewareHandler {
  return secureHeaders({
    contentSecurityPolicy: {
      defaultSrc: ["'none'"],
      styleSrc: ["'self'"],
      imgSrc: ["'self'", 'data:'],
      scriptSrc: ["'self'"],
      connectSrc: ["'self'"],
      baseUri: ["'none'"],
      frameAncestors: ["'none'"],
    },
    xFrameOptions: 'DENY',
    referrerPolicy: 'no-referrer',
    crossOriginResourcePolicy: 'same-origin',
    crossOriginOpenerPolicy: 'same-origin',
    strictTransportSecurity: 'max-age=31536000; includeSubDomains',
    xContentTypeOptions: 'nosniff',
    overwrite: false,
  });
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

function tooLarge(c: Context, maxSize: number) {
  // The unread rest of the body makes the connection unusable: say so, or a keep-alive client
  // sends its next request into a socket we are about to drop (RFC 9112 §9.6).
  c.header('Connection', 'close');
  return jsonError(c, 413, 'payload_too_large', `The request body is larger than ${maxSize} bytes.`);
}
