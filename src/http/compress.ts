import { promisify } from 'node:util';
import { brotliCompress, brotliCompressSync, constants, gzip, gzipSync } from 'node:zlib';
import type { Context, MiddlewareHandler } from 'hono';
import { accepts } from 'hono/accepts';

const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);

/** Bodies smaller than this are sent as they are: compressing them saves little and costs a round of work. */
export const COMPRESS_THRESHOLD_BYTES = 1_024;

/**
 * Bodies up to this size are compressed on the event loop (gzip -6 of a 10 KB tool result ≈ 0.1 ms):
 * handing them to libuv's thread pool cost more CPU than the compression itself (≈ 0.1 ms more per
 * call) and a thread hop of latency (≈ 1 ms on a loaded 2-core machine). Larger ones go to the pool.
 */
export const SYNC_COMPRESS_MAX_BYTES = 64 * 1_024;

/** The text of JSON answers made by jsonResponse, so the middleware need not read their bodies back. */
const knownBodies = new WeakMap<Response, string>();

/**
 * A JSON answer whose body the compression below takes as it is: reading a body back out of a
 * Response builds a web Response and a ReadableStream around it (≈ 0.1 ms for a tool result).
 */
export function jsonResponse(body: string, status = 200): Response {
  const response = new Response(body, { status, headers: { 'content-type': 'application/json' } });
  knownBodies.set(response, body);
  return response;
}

/** JSON (`application/json`, `application/*+json`) only: never `text/event-stream`, whose events must flow. */
const JSON_TYPE = /^application\/(?:[\w.-]+\+)?json\s*(?:;|$)/i;
const NO_TRANSFORM = /(?:^|,)\s*no-transform\s*(?:,|$)/i;

type Accepted = { type: string; q: number };

/**
 * br over gzip when the client likes both equally (at quality 5, smaller than gzip -6 for about the same CPU: tools/list 3.7 against 3.9 KB, under 0.4 ms), else the one
 * it likes more; q=0 refuses one (RFC 9110 §12.5.3). The header is parsed by Hono's accepts helper.
 */
function brotliFirst(list: Accepted[]): string {
  const q = (name: string) => list.find((a) => a.type.toLowerCase() === name)?.q ?? 0;
  const br = q('br');
  const gz = Math.max(q('gzip'), q('x-gzip'));
  if (br > 0 && br >= gz) return 'br';
  return gz > 0 ? 'gzip' : 'identity';
}

async function encode(body: Buffer, encoding: 'br' | 'gzip'): Promise<Buffer> {
  const sync = body.length <= SYNC_COMPRESS_MAX_BYTES;
  if (encoding === 'gzip') return sync ? gzipSync(body, { level: 6 }) : gzipped(body, { level: 6 });
  const options = {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: 5,
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
    },
  };
  return sync ? brotliCompressSync(body, options) : brotli(body, options);
}

/**
 * Replaces the answer. Hono's `c.res` setter would wrap the new Response once more around its body
 * (`new Response(res.body, res)`), turning our buffer into a web stream read back chunk by chunk; the
 * headers it would copy over are all in `headers` already, so the old answer is dropped first.
 */
function replace(c: Context, body: Buffer, init: { status: number; statusText?: string; headers: Headers }) {
  c.res = undefined as unknown as Response;
  c.res = new Response(body, init);
}

/**
 * Compresses JSON responses with br or gzip when the client accepts either (issue 16): tool results
 * and tools/list answers are tens of kilobytes of repetitive JSON. Server-sent event streams are left
 * alone, as are small bodies, bodies already encoded, and `Cache-Control: no-transform`. A request
 * that accepts neither skips all of it. Compression runs on libuv's thread pool, not the event loop.
 */
export function compressJson(): MiddlewareHandler {
  return async (c, next) => {
    const header = c.req.header('accept-encoding');
    const encoding = header
      ? accepts(c, {
          header: 'Accept-Encoding',
          supports: ['br', 'gzip'],
          default: 'identity',
          match: (list) => brotliFirst(list),
        })
      : 'identity';
    await next();
    if (encoding !== 'br' && encoding !== 'gzip') return;
    const res = c.res;
    if (
      !res.body ||
      c.req.method === 'HEAD' ||
      res.status === 204 ||
      res.status === 206 ||
      res.headers.has('content-encoding') ||
      !JSON_TYPE.test(res.headers.get('content-type') ?? '') ||
      NO_TRANSFORM.test(res.headers.get('cache-control') ?? '')
    ) {
      return;
    }
    const headers = new Headers(res.headers);
    // The answer depends on Accept-Encoding from here on: caches must keep the variants apart.
    const vary = headers.get('vary');
    if (vary !== '*' && !/(?:^|,)\s*accept-encoding\s*(?:,|$)/i.test(vary ?? ''))
      headers.set('vary', vary ? `${vary}, Accept-Encoding` : 'Accept-Encoding');
    const known = knownBodies.get(res);
    // A known body has no status text of its own (reading it would build the web Response too).
    const body = known === undefined ? Buffer.from(await res.arrayBuffer()) : Buffer.from(known);
    const init =
      known === undefined
        ? { status: res.status, statusText: res.statusText, headers }
        : { status: res.status, headers };
    if (body.length < COMPRESS_THRESHOLD_BYTES) {
      replace(c, body, init);
      return;
    }
    headers.set('content-encoding', encoding);
    headers.delete('content-length');
    replace(c, await encode(body, encoding), init);
  };
}
