import { setTimeout as sleep } from 'node:timers/promises';
import type { z } from 'zod';
import { sendOnce } from './attempt.js';
import { CIRCUIT_DEFAULTS, CircuitBreaker, type CircuitOptions } from './circuit-breaker.js';
import { credentialDigest } from './credential-digest.js';
import { UPSTREAM_DEFAULTS } from './defaults.js';
import {
  creditsFromBody,
  detailFromBody,
  invalidFieldsFromBody,
  kindForStatus,
  parseRetryAfter,
  UpstreamError,
} from './errors.js';
import { RETRY_DEFAULTS, RetryPolicy } from './retry-policy.js';
import { scrubbedDetail, scrubSecrets } from './scrub.js';
import type {
  AttemptObserver,
  CallOptions,
  RequestSpec,
  UpstreamCredentials,
  UpstreamLogger,
} from './wire-types.js';

export { UPSTREAM_CONNECTIONS_PER_ORIGIN } from './attempt.js';
export type {
  AttemptObserver,
  CallOptions,
  Host,
  Query,
  RequestSpec,
  UpstreamCredentials,
  UpstreamLogger,
} from './wire-types.js';

export interface UpstreamClientOptions {
  searchUrl: string;
  agentUrl: string;
  /** Header names (config.upstream.tokenHeader / userHeader); default UPSTREAM_DEFAULTS'. */
  tokenHeader?: string;
  userHeader?: string;
  /** Per-attempt timeout. Default UPSTREAM_DEFAULTS.timeoutMs. */
  timeoutMs?: number;
  /** Retries for idempotent reads (network errors, 5xx, 429). Default 2 (3 attempts). */
  maxRetries?: number;
  /** First backoff; doubles each retry, with full jitter. Default 200 ms. */
  backoffBaseMs?: number;
  /** Largest backoff between attempts. Default 2 s. */
  backoffMaxMs?: number;
  /** A Retry-After longer than this is not waited for: the 429 is returned. Default 10 s. */
  maxRetryAfterMs?: number;
  /** When failures in a row open a host's circuit for a credential (./circuit-breaker.ts). */
  circuit?: Partial<CircuitOptions>;
  logger?: UpstreamLogger;
  /**
   * Told of every attempt (retries included): which host, the HTTP status or failure kind, and how
   * long it took. The composition root passes the Prometheus histogram; this part imports no metrics.
   */
  observe?: AttemptObserver;
}

/**
 * The wire to both upstream hosts (it knows nothing of MCP or OAuth): one keep-alive pool
 * per origin, per-attempt timeouts, retries of idempotent reads and a circuit per host and credential
 * (the policy: ./retry-policy.ts), failures mapped to UpstreamError and bodies parsed leniently. One instance is shared by every request; the caller's credentials are passed
 * to each call. The endpoints are grouped in endpoints/, one file per upstream resource.
 */
export class UpstreamTransport {
  private readonly searchUrl: string;
  private readonly agentUrl: string;
  private readonly tokenHeader: string;
  private readonly userHeader: string;
  private readonly timeoutMs: number;
  private readonly retries: RetryPolicy;
  private readonly circuit: CircuitBreaker;
  private readonly logger: UpstreamLogger | undefined;
  private readonly observe: AttemptObserver | undefined;

  constructor(options: UpstreamClientOptions) {
    this.searchUrl = options.searchUrl.replace(/\/+$/, '');
    this.agentUrl = options.agentUrl.replace(/\/+$/, '');
    this.tokenHeader = options.tokenHeader ?? UPSTREAM_DEFAULTS.tokenHeader;
    this.userHeader = options.userHeader ?? UPSTREAM_DEFAULTS.userHeader;
    this.timeoutMs = options.timeoutMs ?? UPSTREAM_DEFAULTS.timeoutMs;
    this.retries = new RetryPolicy({
      maxRetries: options.maxRetries ?? RETRY_DEFAULTS.maxRetries,
      backoffBaseMs: options.backoffBaseMs ?? RETRY_DEFAULTS.backoffBaseMs,
      backoffMaxMs: options.backoffMaxMs ?? RETRY_DEFAULTS.backoffMaxMs,
      maxRetryAfterMs: options.maxRetryAfterMs ?? RETRY_DEFAULTS.maxRetryAfterMs,
    });
    this.circuit = new CircuitBreaker({ ...CIRCUIT_DEFAULTS, ...options.circuit });
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
    const deadline = options?.deadline ?? spec.deadline;
    const { text } = await this.request(creds, {
      ...spec,
      ...(signal ? { signal } : {}),
      ...(deadline !== undefined ? { deadline } : {}),
    });
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
   * Sends one request under the retry policy (./retry-policy.ts): idempotent reads (GET) retried on
   * network errors, time-outs, 5xx and 429 with full-jitter back-off, a 429's Retry-After honoured when
   * it fits; nothing runs past `spec.deadline`; an open circuit answers at once. Every response body is
   * read to the end (or cancelled) so the socket returns to the pool.
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
    const deadline = spec.deadline ?? Number.POSITIVE_INFINITY;
    const circuit = circuitKey(spec.host, creds);
    for (let attempt = 1; ; attempt++) {
      const admission = this.circuit.admit(circuit, Date.now());
      if (!admission.go) {
        throw new UpstreamError({
          kind: 'unavailable',
          method: spec.method,
          path: spec.path,
          detail: `its last ${admission.failures} requests failed`,
          retryAfterMs: admission.retryInMs,
        });
      }
      const timeoutMs = Math.min(this.timeoutMs, deadline - Date.now());
      if (timeoutMs <= 0) {
        if (admission.probe) this.circuit.released(circuit);
        throw new UpstreamError({
          kind: 'timeout',
          method: spec.method,
          path: spec.path,
          detail: 'no time left before the deadline',
        });
      }
      const started = performance.now();
      let failure: UpstreamError;
      try {
        const response = await sendOnce(url, spec, headers, body, timeoutMs);
        const ms = Math.round(performance.now() - started);
        this.observe?.(spec.host, response.status, ms / 1000);
        this.logger?.debug(
          { upstream: spec.host, method: spec.method, path: spec.path, status: response.status, ms, attempt },
          'upstream call',
        );
        if (response.status < 500) this.circuit.succeeded(circuit);
        else this.circuit.failed(circuit, Date.now());
        if (response.status >= 200 && response.status < 300) return response;
        failure = this.httpError(spec, response, [creds.token, creds.userId]);
      } catch (error) {
        if (!(error instanceof UpstreamError)) throw error;
        failure = error;
        // The upstream's failure counts; the caller's abort, or a time-out cut short by its deadline, does not.
        if (error.kind === 'network' || (error.kind === 'timeout' && timeoutMs === this.timeoutMs))
          this.circuit.failed(circuit, Date.now());
        else if (admission.probe) this.circuit.released(circuit);
        this.observe?.(spec.host, error.kind, (performance.now() - started) / 1000);
        this.logger?.debug(
          { upstream: spec.host, method: spec.method, path: spec.path, error: error.kind, attempt },
          'upstream call failed',
        );
      }
      if (spec.signal?.aborted) throw failure;
      const pause = this.retries.pauseBefore(idempotent, attempt, failure, deadline, Date.now());
      if (pause === null) throw failure;
      try {
        await sleep(pause, undefined, spec.signal ? { signal: spec.signal } : undefined);
      } catch (cause) {
        throw new UpstreamError({ kind: 'aborted', method: spec.method, path: spec.path, cause });
      }
    }
  }

  /**
   * An error answer as an UpstreamError. The upstream may echo the request's headers: every credential
   * the request carried is removed from the body before anything of it is read, and again from what is
   * read (JSON unescaping can reveal a form the raw text hid), so no token reaches a model or a log.
   */
  private httpError(
    spec: RequestSpec,
    raw: { status: number; text: string; retryAfter?: string | null },
    secrets: readonly string[],
  ) {
    const response = { ...raw, text: scrubSecrets(raw.text, secrets) };
    const kind = kindForStatus(response.status);
    return new UpstreamError({
      kind,
      method: spec.method,
      path: spec.path,
      status: response.status,
      detail: scrubbedDetail(detailFromBody(response.text), secrets),
      credits: kind === 'payment_required' ? creditsFromBody(response.text) : null,
      retryAfterMs: kind === 'rate_limited' ? parseRetryAfter(response.retryAfter ?? null) : null,
      invalidFields:
        kind === 'unprocessable'
          ? (invalidFieldsFromBody(response.text)?.map((f) => ({
              field: scrubbedDetail(f.field, secrets) ?? '',
              message: scrubbedDetail(f.message, secrets) ?? '',
            })) ?? null)
          : null,
    });
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

/**
 * The circuit of a host and credential. Hashed: the breaker's map outlives the call and need not hold
 * the token.
 */
function circuitKey(host: string, creds: UpstreamCredentials): string {
  return `${host}\u0000${credentialDigest(creds)}`;
}
