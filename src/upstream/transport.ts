import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, type Dispatcher, request } from 'undici';
import type { z } from 'zod';
import {
  creditsFromBody,
  detailFromBody,
  invalidFieldsFromBody,
  kindForStatus,
  parseRetryAfter,
  UpstreamError,
} from './errors.js';

/** The two values a workspace's linked credential supplies, sent as headers on every call. */
export interface UpstreamCredentials {
  token: string;
  userId: string;
}

/** The only logging the client does: one debug line per attempt, never headers or bodies. */
/**
 * At most this many connections to each upstream origin, shared by every client of this process;
 * further requests queue in the pool until one is free (their per-attempt timeout runs meanwhile).
 * undici's default dispatcher has no limit: a burst of reads (thousands of waiting calls' polls falling
 * due together) opened a connection for each, and the upstream's listen queue dropped the excess SYNs
 * (`netstat -s`: hundreds of thousands of "SYNs to LISTEN sockets dropped" in one bench run of 10,000
 * waiting calls), so reads waited seconds for a retransmitted connect, timed out or failed as
 * network errors (UND_ERR_CONNECT_TIMEOUT). 256 stays under the listen backlog Node servers have by
 * default (511) and still allows some 1,700 reads/s at 150 ms each (10,000 waiting calls polled every
 * 5 s need 2,000).
 */
export const UPSTREAM_CONNECTIONS_PER_ORIGIN = 256;

const upstreamPool = new Agent({ connections: UPSTREAM_CONNECTIONS_PER_ORIGIN });

export interface UpstreamLogger {
  debug(obj: Record<string, unknown>, msg: string): void;
  warn(obj: Record<string, unknown>, msg: string): void;
}

export interface UpstreamClientOptions {
  searchUrl: string;
  agentUrl: string;
  /** Header names (config.upstream.tokenHeader / userHeader). */
  tokenHeader?: string;
  userHeader?: string;
  /** Per-attempt timeout. Default 30 s. */
  timeoutMs?: number;
  /** Retries for idempotent reads (network errors, 5xx, 429). Default 2 (3 attempts). */
  maxRetries?: number;
  /** First backoff; doubles each retry, with full jitter. Default 200 ms. */
  backoffBaseMs?: number;
  /** Largest backoff between attempts. Default 2 s. */
  backoffMaxMs?: number;
  /** A Retry-After longer than this is not waited for: the 429 is returned. Default 10 s. */
  maxRetryAfterMs?: number;
  logger?: UpstreamLogger;
  /**
   * Told of every attempt (retries included): which host, the HTTP status or failure kind, and how
   * long it took. The composition root passes the Prometheus histogram; this part imports no metrics.
   */
  observe?: AttemptObserver;
}

export type AttemptObserver = (host: Host, outcome: number | string, seconds: number) => void;

export type Host = 'search' | 'agent';

export interface RequestSpec {
  host: Host;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  query?: Record<string, unknown>;
  body?: unknown;
  /** Send the user-id header (every endpoint but GET /api/usage). Default true. */
  sendUserId?: boolean;
  signal?: AbortSignal;
}

/** Per-call options every method accepts. */
export interface CallOptions {
  signal?: AbortSignal;
}

export type Query = RequestSpec['query'];

/**
 * The wire to both upstream hosts (DESIGN.md §1: knows nothing of MCP or OAuth): one keep-alive pool
 * per origin, per-attempt timeouts, retries of idempotent reads, failures mapped to UpstreamError and
 * bodies parsed leniently. One instance is shared by every request; the caller's credentials are passed
 * to each call. The endpoints are grouped in endpoints/, one file per upstream resource.
 */
export class UpstreamTransport {
  private readonly searchUrl: string;
  private readonly agentUrl: string;
  private readonly tokenHeader: string;
  private readonly userHeader: string;
  private readonly timeoutMs: number;
  private readonly maxRetries: number;
  private readonly backoffBaseMs: number;
  private readonly backoffMaxMs: number;
  private readonly maxRetryAfterMs: number;
  private readonly logger: UpstreamLogger | undefined;
  private readonly observe: AttemptObserver | undefined;

  constructor(options: UpstreamClientOptions) {
    this.searchUrl = options.searchUrl.replace(/\/+$/, '');
    this.agentUrl = options.agentUrl.replace(/\/+$/, '');
    this.tokenHeader = options.tokenHeader ?? 'X-SERVICE-TOKEN';
    this.userHeader = options.userHeader ?? 'X-SERVICE-USER-ID';
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.maxRetries = options.maxRetries ?? 2;
    this.backoffBaseMs = options.backoffBaseMs ?? 200;
    this.backoffMaxMs = options.backoffMaxMs ?? 2_000;
    this.maxRetryAfterMs = options.maxRetryAfterMs ?? 10_000;
    this.logger = options.logger;
    this.observe = options.observe;
  }

  /** One call: request with retries, then the body parsed leniently by `schema`. */
  async call<T extends z.ZodType>(
    creds: UpstreamCredentials,
    spec: RequestSpec,
    schema: T,
    options?: CallOptions,
  ): Promise<z.infer<T>> {
    const signal = options?.signal ?? spec.signal;
    const { text } = await this.request(creds, { ...spec, ...(signal ? { signal } : {}) });
    let json: unknown;
    try {
      json = text.trim() === '' ? {} : JSON.parse(text);
    } catch (cause) {
      throw new UpstreamError({
        kind: 'malformed',
        method: spec.method,
        path: spec.path,
        detail: 'not JSON',
        cause,
      });
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new UpstreamError({
        kind: 'malformed',
        method: spec.method,
        path: spec.path,
        detail: issue ? `${issue.path.join('.') || '(body)'}: ${issue.message}` : 'unexpected shape',
      });
    }
    return parsed.data;
  }

  /**
   * Sends one request, retrying idempotent reads (GET) on network errors, timeouts, 5xx and 429 with
   * exponential backoff and full jitter; a 429's Retry-After is honoured up to `maxRetryAfterMs`.
   * Every response body is read to the end (or cancelled) so the socket returns to the pool.
   */
  async request(creds: UpstreamCredentials, spec: RequestSpec): Promise<{ status: number; text: string }> {
    const url = this.urlFor(spec);
    const headers: Record<string, string> = { accept: 'application/json', [this.tokenHeader]: creds.token };
    if (spec.sendUserId !== false) headers[this.userHeader] = creds.userId;
    let body: string | undefined;
    if (spec.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(spec.body);
    }
    const idempotent = spec.method === 'GET';
    const attempts = idempotent ? this.maxRetries + 1 : 1;
    for (let attempt = 1; ; attempt++) {
      const started = performance.now();
      let failure: UpstreamError;
      try {
        const response = await this.attempt(url, spec, headers, body);
        const ms = Math.round(performance.now() - started);
        this.observe?.(spec.host, response.status, ms / 1000);
        this.logger?.debug(
          { upstream: spec.host, method: spec.method, path: spec.path, status: response.status, ms, attempt },
          'upstream call',
        );
        if (response.status >= 200 && response.status < 300) return response;
        failure = this.httpError(spec, response);
      } catch (error) {
        if (!(error instanceof UpstreamError)) throw error;
        failure = error;
        this.observe?.(spec.host, error.kind, (performance.now() - started) / 1000);
        this.logger?.debug(
          { upstream: spec.host, method: spec.method, path: spec.path, error: error.kind, attempt },
          'upstream call failed',
        );
      }
      const retryable =
        failure.kind === 'network' ||
        failure.kind === 'timeout' ||
        failure.kind === 'server' ||
        failure.kind === 'rate_limited';
      if (!retryable || attempt >= attempts || spec.signal?.aborted) throw failure;
      let delay = this.backoff(attempt);
      if (failure.kind === 'rate_limited' && failure.retryAfterMs !== null) {
        if (failure.retryAfterMs > this.maxRetryAfterMs) throw failure;
        delay = Math.max(delay, failure.retryAfterMs);
      }
      try {
        await sleep(delay, undefined, spec.signal ? { signal: spec.signal } : undefined);
      } catch (cause) {
        throw new UpstreamError({ kind: 'aborted', method: spec.method, path: spec.path, cause });
      }
    }
  }

  private async attempt(
    url: string,
    spec: RequestSpec,
    headers: Record<string, string>,
    body: string | undefined,
  ): Promise<{ status: number; text: string; retryAfter: string | null }> {
    // One controller per attempt, aborted by an explicit timer or by the caller's signal through a
    // listener; both are removed when the attempt ends. So a waiting tool call holds nothing between
    // polls but its own sleep: AbortSignal.timeout() would leave a timer pending per attempt, and
    // AbortSignal.any() would register a dependent signal (weak refs, a finalizer) on the call's
    // long-lived signal at every poll.
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), this.timeoutMs);
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
          detail: `no answer within ${this.timeoutMs} ms`,
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
      // proxied call (bench: a 19 KB GET from the sandbox, 1,054 µs by fetch, 609 µs by request).
      // It follows no redirects: a 3xx is an unexpected status, as `redirect: 'error'` made it before.
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

  private httpError(
    spec: RequestSpec,
    response: { status: number; text: string; retryAfter?: string | null },
  ) {
    const kind = kindForStatus(response.status);
    return new UpstreamError({
      kind,
      method: spec.method,
      path: spec.path,
      status: response.status,
      detail: detailFromBody(response.text),
      credits: kind === 'payment_required' ? creditsFromBody(response.text) : null,
      retryAfterMs: kind === 'rate_limited' ? parseRetryAfter(response.retryAfter ?? null) : null,
      invalidFields: kind === 'unprocessable' ? invalidFieldsFromBody(response.text) : null,
    });
  }

  private backoff(attempt: number): number {
    const ceiling = Math.min(this.backoffMaxMs, this.backoffBaseMs * 2 ** (attempt - 1));
    return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
  }

  private urlFor(spec: RequestSpec): string {
    const base = spec.host === 'search' ? this.searchUrl : this.agentUrl;
    let url = base + spec.path;
    if (spec.query) {
      const params = new URLSearchParams();
      for (const [key, value] of Object.entries(spec.query)) {
        if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
          params.set(key, String(value));
        }
      }
      const qs = params.toString();
      if (qs) url += `?${qs}`;
    }
    return url;
  }
}

function networkDetail(cause: unknown): string {
  const inner = cause instanceof Error && cause.cause instanceof Error ? cause.cause : cause;
  if (inner && typeof inner === 'object' && 'code' in inner && typeof inner.code === 'string')
    return inner.code;
  return inner instanceof Error ? inner.message.slice(0, 200) : 'connection failed';
}
