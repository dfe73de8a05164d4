import type { UpstreamError } from './errors.js';

/**
 * How this server treats a failed upstream request, in one place (docs/long-running-calls.md, "Upstream
 * faults"):
 *
 * - Only idempotent reads (GET) are retried: after a network error, a time-out or a 5xx, at most
 *   `maxRetries` times, with exponential back-off and full jitter (a pause drawn uniformly between 0
 *   and base·2^(n-1), at most `backoffMaxMs`), so callers that failed together do not retry together.
 * - A 429 is retried after its Retry-After (at least the back-off) when that fits before the call's
 *   deadline and within `maxRetryAfterMs`; otherwise it is answered at once, naming when to call again.
 * - No attempt starts, and no pause runs, past the call's deadline: an attempt's time-out is cut to
 *   what is left, and a retry that cannot finish in time is not made.
 * - A create (POST) is never retried here: its outcome may be unknown (src/mcp/reuse/ finds it first).
 * - Consecutive failures open a circuit (./circuit-breaker.ts) that answers at once instead of asking.
 */
export interface RetryPolicyOptions {
  /** Retries of an idempotent read. Default 2 (3 attempts). */
  maxRetries: number;
  /** The first back-off ceiling; it doubles each retry. Default 200 ms. */
  backoffBaseMs: number;
  /** The largest back-off ceiling. Default 2 s. */
  backoffMaxMs: number;
  /** A longer Retry-After is not waited for: the 429 is answered. Default 10 s. */
  maxRetryAfterMs: number;
}

export const RETRY_DEFAULTS: RetryPolicyOptions = {
  maxRetries: 2,
  backoffBaseMs: 200,
  backoffMaxMs: 2_000,
  maxRetryAfterMs: 10_000,
};

/** Failures worth another attempt of a read: the upstream may answer the same request next time. */
export function isTransient(kind: UpstreamError['kind']): boolean {
  return kind === 'network' || kind === 'timeout' || kind === 'server' || kind === 'rate_limited';
}

export class RetryPolicy {
  constructor(
    private readonly o: RetryPolicyOptions,
    private readonly random: () => number = Math.random,
  ) {}

  /**
   * The pause before the next attempt of a request, or null to give up and throw `failure`:
   * `attempt` attempts were made, the request may not run past `deadline` (epoch ms).
   */
  pauseBefore(
    idempotent: boolean,
    attempt: number,
    failure: UpstreamError,
    deadline: number,
    now: number,
  ): number | null {
    if (!idempotent || !isTransient(failure.kind) || attempt > this.o.maxRetries) return null;
    let pause = this.backoff(attempt);
    if (failure.kind === 'rate_limited' && failure.retryAfterMs !== null) {
      if (failure.retryAfterMs > this.o.maxRetryAfterMs) return null;
      pause = Math.max(pause, failure.retryAfterMs);
    }
    // The retry must start with time left for an answer: a pause ending at the deadline is no use.
    return now + pause < deadline ? pause : null;
  }

  /** Full jitter: uniform in [0, min(max, base·2^(attempt-1))]. */
  backoff(attempt: number): number {
    const ceiling = Math.min(this.o.backoffMaxMs, this.o.backoffBaseMs * 2 ** (attempt - 1));
    return Math.round(this.random() * ceiling);
  }
}
