import { promisify } from 'node:util';
import { brotliCompress, brotliCompressSync, constants, gzip, gzipSync } from 'node:zlib';
import type { Context, MiddlewareHandler } from 'hono';
import { accepts } from 'hono/accepts';

const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);

/** Bodies smaller than this are sent as they are: compressing them saves little and costs a round of work. */
export const COMPRESS_THRESHOLD_BYTES = 1_024;

/**
 * Bodies up to this size are compressed on the event loop, where a tool result takes a fraction of a
 * millisecond: handing them to libuv's thread pool costs more CPU than the compression itself, and a
 * thread hop of latency. Larger ones go to the pool (figures: docs/performance.md, Figures behind the
 * code).
 */
export const SYNC_COMPRESS_MAX_BYTES = 64 * 1_024;

/** The text and status of JSON answers made by jsonResponse, so the middleware need not read them back. */
const knownBodies = new WeakMap<Response, { body: string; status: number }>();

/**
 * A JSON answer whose body the compression below takes as it is: reading a body back out of a
 * Response builds a web Response and a ReadableStream around it.
 */
export function jsonResponse(body: string, status = 200): Response {
  const response = new Response(body, { status, headers: { 'content-type': 'application/json' } });
  knownBodies.set(response, { body, status });
  return response;
}

/** The headers of a known body sent uncompressed to a client that takes compression (RFC 9110 §12.5.5). */
const SMALL_KNOWN_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'application/json',
  vary: 'Accept-Encoding',
});

type Coding = 'br' | 'gzip';

/**
 * An answer sent again and again with the same bytes (a replayed tools/list,
 * src/mcp/sdk-bypass/tools-list-cache.ts): each content coding of it is made once, the first time a client
 * asks for it, and kept in `coded`, which belongs to the answer's owner and lives as long as the answer.
 */
export interface ReusableAnswer {
  status: number;
  /** The identity answer's headers, as a plain record (the adapter writes those without a Headers). */
  headers: Readonly<Record<string, string>>;
  body: Buffer;
  coded: Map<Coding, { body: Buffer; headers: Readonly<Record<string, string>> }>;
}

const reusableAnswers = new WeakMap<Response, ReusableAnswer>();

/** The identity Response of a reusable answer; the middleware below sends the coding the client takes. */
export function reusableResponse(answer: ReusableAnswer): Response {
  const response = new Response(answer.body, { status: answer.status, headers: answer.headers });
  reusableAnswers.set(response, answer);
  return response;
}

/** JSON (`application/json`, `application/*+json`) only: never `text/event-stream`, whose events must flow. */
const JSON_TYPE = /^application\/(?:[\w.-]+\+)?json\s*(?:;|$)/i;
const NO_TRANSFORM = /(?:^|,)\s*no-transform\s*(?:,|$)/i;

type Accepted = { type: string; q: number };

/** The codings a client takes: one for answers compressed once and kept, one for answers made per request. */
interface Negotiated {
  kept: Coding | 'identity';
  once: Coding | 'identity';
}

/**
 * The codings the client's Accept-Encoding allows (q=0 refuses one, RFC 9110 §12.5.3), parsed by
 * Hono's accepts helper. A kept answer (tools/list) takes br over gzip when the client likes both
 * equally: at quality 5 it is smaller than gzip -6, and made once. An
 * answer made per request takes gzip when the client likes it at least as much: at the fast levels
 * used for those (encodeOnce) gzip is as quick as brotli and smaller.
 */
function choose(list: Accepted[]): Negotiated {
  const q = (name: string) => list.find((a) => a.type.toLowerCase() === name)?.q ?? 0;
  const br = q('br');
  const gz = Math.max(q('gzip'), q('x-gzip'));
  const best = (first: Coding, qFirst: number, second: Coding, qSecond: number) =>
    qFirst > 0 && qFirst >= qSecond ? first : qSecond > 0 ? second : 'identity';
  return { kept: best('br', br, 'gzip', gz), once: best('gzip', gz, 'br', br) };
}

const brotliOptions = (body: Buffer) => ({
  params: {
    [constants.BROTLI_PARAM_QUALITY]: 5,
    [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
    [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
  },
});

/** encode() on the event loop whatever the size: for answers compressed once and kept. */
function encodeNow(body: Buffer, encoding: Coding): Buffer {
  return encoding === 'gzip' ? gzipSync(body, { level: 6 }) : brotliCompressSync(body, brotliOptions(body));
}

/**
 * An answer made for one request (a tool result) is compressed fast rather than small: gzip level 1
 * (nginx's default level) and brotli quality 1: on a tool result gzip -1 takes clearly less time than
 * gzip -6 for a few per cent more bytes, and brotli 5, the level kept answers get, several times as
 * long (figures: docs/performance.md, Figures behind the code).
 */
const DYNAMIC_GZIP = { level: 1 };
const dynamicBrotliOptions = (body: Buffer) => ({
  params: {
    [constants.BROTLI_PARAM_QUALITY]: 1,
    [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
    [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
  },
});

async function encodeOnce(body: Buffer, encoding: Coding): Promise<Buffer> {
  if (body.length <= SYNC_COMPRESS_MAX_BYTES) {
    return encoding === 'gzip'
      ? gzipSync(body, DYNAMIC_GZIP)
      : brotliCompressSync(body, dynamicBrotliOptions(body));
  }
  return encoding === 'gzip' ? gzipped(body, DYNAMIC_GZIP) : brotli(body, dynamicBrotliOptions(body));
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

/** Vary with Accept-Encoding added: the answer depends on it from here on, caches must keep the variants apart. */
function varyOnEncoding(vary: string | null | undefined): string | null {
  if (vary === '*' || /(?:^|,)\s*accept-encoding\s*(?:,|$)/i.test(vary ?? '')) return null;
  return vary ? `${vary}, Accept-Encoding` : 'Accept-Encoding';
}

/** Whether a reusable answer may be compressed at all (the rules of any other answer), found once. */
const compressibleAnswers = new WeakMap<ReusableAnswer, boolean>();

function compressible(answer: ReusableAnswer): boolean {
  let verdict = compressibleAnswers.get(answer);
  if (verdict === undefined) {
    const headers = new Headers(answer.headers);
    verdict =
      answer.status !== 204 &&
      answer.status !== 206 &&
      answer.body.length >= COMPRESS_THRESHOLD_BYTES &&
      !headers.has('content-encoding') &&
      JSON_TYPE.test(headers.get('content-type') ?? '') &&
      !NO_TRANSFORM.test(headers.get('cache-control') ?? '');
    compressibleAnswers.set(answer, verdict);
  }
  return verdict;
}

/** A reusable answer in the client's coding, compressed the first time only. */
function sendReusable(c: Context, answer: ReusableAnswer, coding: Coding): void {
  if (c.req.method === 'HEAD' || !compressible(answer)) return;
  let coded = answer.coded.get(coding);
  if (!coded) {
    const headers: Record<string, string> = {};
    let vary: string | undefined;
    for (const [key, value] of Object.entries(answer.headers)) {
      const name = key.toLowerCase();
      if (name === 'vary') vary = value;
      else if (name !== 'content-length') headers[key] = value;
    }
    headers.vary = varyOnEncoding(vary) ?? (vary as string);
    headers['content-encoding'] = coding;
    coded = { body: encodeNow(answer.body, coding), headers: Object.freeze(headers) };
    answer.coded.set(coding, coded);
  }
  c.res = undefined as unknown as Response;
  c.res = new Response(coded.body, { status: answer.status, headers: coded.headers });
}

/** Accept-Encoding values seen, and the codings each negotiates (clients send a handful of spellings). */
const negotiated = new Map<string, Negotiated>();
const NEGOTIATED_MAX = 64;
const NEGOTIATED_HEADER_MAX = 256;
const IDENTITY: Negotiated = { kept: 'identity', once: 'identity' };

function negotiate(c: Context, header: string): Negotiated {
  let codings = negotiated.get(header);
  if (codings === undefined) {
    let chosen: Negotiated = IDENTITY;
    accepts(c, {
      header: 'Accept-Encoding',
      supports: ['br', 'gzip'],
      default: 'identity',
      match: (list) => {
        chosen = choose(list);
        return chosen.kept;
      },
    });
    codings = chosen;
    // Keyed by the header as sent: a long one (the client's choice) is negotiated each time, not kept.
    if (header.length <= NEGOTIATED_HEADER_MAX) {
      if (negotiated.size >= NEGOTIATED_MAX) negotiated.clear();
      negotiated.set(header, codings);
    }
  }
  return codings;
}

/**
 * A body made by jsonResponse, sent in the client's coding without reading anything back out of the
 * Response: its headers are known, so the answer is a plain record the adapter writes directly.
 */
function sendKnown(c: Context, body: string, status: number, coding: Coding): Promise<void> | undefined {
  if (c.req.method === 'HEAD') return;
  // At most 3 bytes a UTF-16 unit: a body this short is small without counting its bytes. Sent as
  // text with headers shared by every such answer: nothing encoded or copied for it.
  if (body.length * 3 < COMPRESS_THRESHOLD_BYTES || Buffer.byteLength(body) < COMPRESS_THRESHOLD_BYTES) {
    c.res = undefined as unknown as Response;
    c.res = new Response(body, { status, headers: SMALL_KNOWN_HEADERS });
    return;
  }
  const bytes = Buffer.from(body);
  const headers: Record<string, string> = { ...SMALL_KNOWN_HEADERS, 'content-encoding': coding };
  return encodeOnce(bytes, coding).then((coded) => {
    c.res = undefined as unknown as Response;
    c.res = new Response(coded, { status, headers });
  });
}

/**
 * Compresses JSON responses with br or gzip when the client accepts either: tool results
 * and tools/list answers are tens of kilobytes of repetitive JSON. Server-sent event streams are left
 * alone, as are small bodies, bodies already encoded, and `Cache-Control: no-transform`. A request
 * that accepts neither skips all of it. Bodies up to SYNC_COMPRESS_MAX_BYTES are compressed on the
 * event loop, larger ones on libuv's thread pool.
 */
export function compressJson(): MiddlewareHandler {
  return async (c, next) => {
    const header = c.req.header('accept-encoding');
    const codings = header ? negotiate(c, header) : IDENTITY;
    await next();
    if (codings === IDENTITY) return;
    const res = c.res;
    const answer = reusableAnswers.get(res);
    if (answer) {
      if (codings.kept !== 'identity') sendReusable(c, answer, codings.kept);
      return;
    }
    const encoding = codings.once;
    if (encoding === 'identity') return;
    const known = knownBodies.get(res);
    if (known !== undefined) return sendKnown(c, known.body, known.status, encoding);
    // The body last: on a Response of @hono/node-server, reading it builds the web Response and
    // loses the adapter's direct write, which an event stream or an error answer should keep.
    if (
      c.req.method === 'HEAD' ||
      res.status === 204 ||
      res.status === 206 ||
      !JSON_TYPE.test(res.headers.get('content-type') ?? '') ||
      res.headers.has('content-encoding') ||
      NO_TRANSFORM.test(res.headers.get('cache-control') ?? '') ||
      !res.body
    ) {
      return;
    }
    const headers = new Headers(res.headers);
    const vary = varyOnEncoding(headers.get('vary'));
    if (vary) headers.set('vary', vary);
    const body = Buffer.from(await res.arrayBuffer());
    const init = { status: res.status, statusText: res.statusText, headers };
    if (body.length < COMPRESS_THRESHOLD_BYTES) {
      replace(c, body, init);
      return;
    }
    headers.set('content-encoding', encoding);
    headers.delete('content-length');
    replace(c, await encodeOnce(body, encoding), init);
  };
}
