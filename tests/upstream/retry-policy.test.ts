/**
 * The upstream retry policy and circuit (src/upstream/retry-policy.ts, circuit-breaker.ts) as pure
 * rules: which failures are retried and after how long, nothing past the deadline, and when a circuit
 * opens, probes and closes. The transport under real faults is in tests/upstream/client.test.ts and the
 * fault suite (tests/reliability/fault-suite.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { CircuitBreaker } from '../../src/upstream/circuit-breaker.js';
import { UpstreamError, type UpstreamErrorKind } from '../../src/upstream/errors.js';
import { RETRY_DEFAULTS, RetryPolicy } from '../../src/upstream/retry-policy.js';

const failure = (kind: UpstreamErrorKind, retryAfterMs: number | null = null) =>
  new UpstreamError({ kind, method: 'GET', path: '/x', retryAfterMs });

describe('the retry policy', () => {
  it('full jitter: a pause between 0 and the doubling ceiling', () => {
    const low = new RetryPolicy(RETRY_DEFAULTS, () => 0);
    const high = new RetryPolicy(RETRY_DEFAULTS, () => 1);
    expect([1, 2, 3].map((n) => low.backoff(n))).toEqual([0, 0, 0]);
    expect([1, 2, 3, 5].map((n) => high.backoff(n))).toEqual([200, 400, 800, 2_000]);
  });

  it('retries reads on passing faults only, at most twice, and never a create', () => {
    const p = new RetryPolicy(RETRY_DEFAULTS, () => 1);
    const far = Number.POSITIVE_INFINITY;
    for (const kind of ['network', 'timeout', 'server', 'rate_limited'] as const)
      expect(p.pauseBefore(true, 1, failure(kind), far, 0)).toBe(200);
    for (const kind of ['not_found', 'bad_request', 'unavailable', 'aborted'] as const)
      expect(p.pauseBefore(true, 1, failure(kind), far, 0)).toBeNull();
    expect(p.pauseBefore(true, 3, failure('server'), far, 0)).toBeNull();
    expect(p.pauseBefore(false, 1, failure('network'), far, 0)).toBeNull();
  });

  it('honours Retry-After when it fits before the deadline, else answers now', () => {
    const p = new RetryPolicy(RETRY_DEFAULTS, () => 0);
    expect(p.pauseBefore(true, 1, failure('rate_limited', 1_000), 5_000, 0)).toBe(1_000);
    expect(p.pauseBefore(true, 1, failure('rate_limited', 5_000), 5_000, 0)).toBeNull();
    expect(p.pauseBefore(true, 1, failure('rate_limited', 11_000), Number.POSITIVE_INFINITY, 0)).toBeNull();
    // A back-off that would end at the deadline is no use either.
    expect(
      new RetryPolicy(RETRY_DEFAULTS, () => 1).pauseBefore(true, 1, failure('server'), 150, 0),
    ).toBeNull();
  });
});

describe('the circuit', () => {
  it('opens after five failures in a row, probes once half-open, doubles after a failed probe', () => {
    const c = new CircuitBreaker({ failures: 5, openMs: 1_000, maxOpenMs: 3_000 });
    for (let i = 0; i < 4; i++) c.failed('k', 0);
    expect(c.admit('k', 0)).toEqual({ go: true, probe: false });
    c.failed('k', 0);
    expect(c.admit('k', 500)).toEqual({ go: false, retryInMs: 500, failures: 5 });
    expect(c.admit('other', 500)).toEqual({ go: true, probe: false });
    expect(c.admit('k', 1_000)).toEqual({ go: true, probe: true });
    expect(c.admit('k', 1_000).go).toBe(false);
    c.failed('k', 1_000);
    expect(c.admit('k', 2_999)).toMatchObject({ go: false, retryInMs: 1 });
    expect(c.admit('k', 3_000)).toEqual({ go: true, probe: true });
    // Twice 2 s is past the 3 s most: open until 6 s.
    c.failed('k', 3_000);
    expect(c.admit('k', 5_999)).toMatchObject({ go: false, retryInMs: 1 });
    expect(c.admit('k', 6_000)).toEqual({ go: true, probe: true });
    // A probe that ended without an answer (its caller left) lets the next request probe.
    c.released('k');
    expect(c.admit('k', 6_000)).toEqual({ go: true, probe: true });
  });

  it('a success closes it', () => {
    const c = new CircuitBreaker({ failures: 2, openMs: 1_000, maxOpenMs: 4_000 });
    c.failed('k', 0);
    c.failed('k', 0);
    expect(c.admit('k', 1_000)).toEqual({ go: true, probe: true });
    c.succeeded('k');
    expect(c.admit('k', 1_000)).toEqual({ go: true, probe: false });
  });
});
