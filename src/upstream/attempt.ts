import { Agent, type Dispatcher, request } from 'undici';
import { otel } from '../telemetry/index.js';
import { UpstreamError } from './errors.js';
import type { RequestSpec } from './wire-types.js';

/**
 * At most this many connections to each upstream origin, shared by every client of this process;
 * further requests queue in the pool until one is free (their per-attempt timeout runs meanwhile).
 * undici's default dispatcher has no limit: a burst of reads (thousands of waiting calls' polls falling
 * due together) opens a connection for each, the upstream's listen queue drops the excess SYNs, and
 * reads wait seconds for a retransmitted connect, time out or fail as network errors
 * (UND_ERR_CONNECT_TIMEOUT; docs/performance.md, Figures behind the code). 256 stays under the listen
 * backlog Node servers have by default (511) and still allows 256 reads in flight, some 1,700 a second
 * when each takes 150 ms.
 */
export const UPSTREAM_CONNECTIONS_PER_ORIGIN = 256;

const upstreamPool = new Agent({ connections: UPSTREAM_CONNECTIONS_PER_ORIGIN });

type Attempt = { status: number; text: string; retryAfter: string | null };

/**
 * One HTTP attempt at an upstream call on the shared pool, with its own timeout; the whole body read
 * (the connection goes back to the pool). Failures are UpstreamErrors: aborted, timeout or network.
 * With telemetry on, the attempt is a CLIENT span and sends its `traceparent` (on a copy of the headers).
 */
export function sendOnce(
  url: string,
  spec: RequestSpec,
  headers: Record<string, string>,
  body: string | undefined,
  timeoutMs: number,
): Promise<Attempt> {
  if (!otel.on) return attemptOnce(url, spec, headers, body, timeoutMs);
  const traced = { ...headers };
  return otel.t.upstream(
    spec.method,
    url,
    traced,
    () => attemptOnce(url, spec, traced, body, timeoutMs),
    (attempt) => ({ status: attempt.status }),
    (error) => (error instanceof UpstreamError ? error.kind : 'error'),
  );
}

async function attemptOnce(
  url: string,
  spec: RequestSpec,
  headers: Record<string, string>,
  body: string | undefined,
  timeoutMs: number,
): Promise<Attempt> {
  // One controller per attempt, aborted by an explicit timer or by the caller's signal through a
  // listener; both are removed when the attempt ends. So a waiting tool call holds nothing between
  // polls but its own sleep: AbortSignal.timeout() would leave a timer pending per attempt, and
  // AbortSignal.any() would register a dependent signal (weak refs, a finalizer) on the call's
  // long-lived signal at every poll.
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), timeoutMs);
  const callerAborted = () => timeout.abort(spec.signal?.reason);
  if (spec.signal?.aborted) timeout.abort(spec.signal.reason);
  else spec.signal?.addEventListener('abort', callerAborted, { once: true });
  const signal = timeout.signal;
  const fail = (cause: unknown): UpstreamError => {
    if (spec.signal?.aborted) {
      return new UpstreamError({ kind: 'aborted', method: spec.method, path: spec.path, cause });
    }
    if (timeout.signal.aborted) {
      return new UpstreamError({
        kind: 'timeout',
        method: spec.method,
        path: spec.path,
        detail: `no answer within ${timeoutMs} ms`,
        cause,
      });
    }
    return new UpstreamError({
      kind: 'network',
      method: spec.method,
      path: spec.path,
      detail: networkDetail(cause),
      cause,
    });
  };
  try {
    // undici's request(), not fetch(): the same client and keep-alive pool per origin without the
    // WHATWG Request/Response/Headers and web-stream layers, which cost more than the rest of a
    // proxied call (docs/performance.md, Figures behind the code). It follows no redirects: a 3xx is
    // an unexpected status.
    let response: Dispatcher.ResponseData;
    try {
      response = await request(url, {
        method: spec.method,
        headers,
        body,
        signal,
        dispatcher: upstreamPool,
      });
    } catch (cause) {
      throw fail(cause);
    }
    try {
      // Reading the whole body returns the connection to the keep-alive pool.
      const text = await response.body.text();
      const retryAfter = response.headers['retry-after'];
      return {
        status: response.statusCode,
        text,
        retryAfter: (Array.isArray(retryAfter) ? retryAfter[0] : retryAfter) ?? null,
      };
    } catch (cause) {
      response.body.destroy();
      throw fail(cause);
    }
  } finally {
    clearTimeout(timer);
    spec.signal?.removeEventListener('abort', callerAborted);
  }
}

function networkDetail(cause: unknown): string {
  const inner = cause instanceof Error && cause.cause instanceof Error ? cause.cause : cause;
  if (inner && typeof inner === 'object' && 'code' in inner && typeof inner.code === 'string')
    return inner.code;
  return inner instanceof Error ? inner.message.slice(0, 200) : 'connection failed';
}
