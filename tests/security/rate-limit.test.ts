import { describe, expect, it } from 'vitest';
import { currentWindowCap, rateLimitDecision, windowStartOf } from '../../src/security/rate-limit.js';

const rule = { limit: 10, windowMs: 60_000 };

describe('two-window rate-limit estimate', () => {
  it('allows `limit` events in a window with an empty previous window, then says how long to wait', () => {
    const start = windowStartOf(600_000, rule.windowMs);
    const now = start + 15_000;
    expect(rateLimitDecision(rule, now, { windowStart: start, previous: 0, current: 9 })).toEqual({
      allowed: true,
    });
    // Ten in this window: the next window starts with them as "previous" at full weight, so the first
    // free slot is when their weight has fallen below 9/10, 6 s into it; 45 + 6 s from now.
    expect(rateLimitDecision(rule, now, { windowStart: start, previous: 0, current: 10 })).toEqual({
      allowed: false,
      retryAfterSeconds: 51,
    });
  });

  it('weights the previous window by how much of it still overlaps the last minute', () => {
    const start = windowStartOf(600_000, rule.windowMs);
    // A quarter into the window, the previous one counts 3/4: 8 × 0.75 = 6, so 4 more fit.
    const now = start + 15_000;
    expect(currentWindowCap(rule, now, 8)).toBe(4);
    expect(rateLimitDecision(rule, now, { windowStart: start, previous: 8, current: 3 })).toEqual({
      allowed: true,
    });
    // Full: 6 + 4. The previous window's weight must fall to 5/8 (< 6/8 − …): 37.5 s into the window.
    const refused = rateLimitDecision(rule, now, { windowStart: start, previous: 8, current: 4 });
    expect(refused).toEqual({ allowed: false, retryAfterSeconds: 8 });
    expect(
      rateLimitDecision(rule, start + 22_500 + 1, { windowStart: start, previous: 8, current: 4 }),
    ).toEqual({
      allowed: true,
    });
  });

  it('never allows a burst of twice the limit across a window boundary (what a fixed window would)', () => {
    const start = windowStartOf(600_000, rule.windowMs);
    // Ten at the very end of the previous window, then the boundary: nothing more until they age.
    expect(rateLimitDecision(rule, start + 1, { windowStart: start, previous: 10, current: 0 }).allowed).toBe(
      false,
    );
    expect(
      rateLimitDecision(rule, start + 6_001, { windowStart: start, previous: 10, current: 0 }).allowed,
    ).toBe(true);
  });

  it('never tells anyone to wait longer than one window, even at the very start of a window', () => {
    const start = windowStartOf(600_000, rule.windowMs);
    // Ten failures a second into the window: the estimate would say 54 + 6 s; one window is the most.
    expect(rateLimitDecision(rule, start + 1_000, { windowStart: start, previous: 0, current: 10 })).toEqual({
      allowed: false,
      retryAfterSeconds: 60,
    });
  });
});
