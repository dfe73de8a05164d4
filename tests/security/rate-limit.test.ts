import { describe, expect, it } from 'vitest';
import { RateLimiter } from '../../src/security/rate-limit.js';

describe('RateLimiter', () => {
  it('allows `limit` events per sliding window, then says how long to wait', () => {
    let now = 1_000_000;
    const limiter = new RateLimiter({ limit: 3, windowMs: 60_000 }, () => now);
    for (let i = 0; i < 3; i++) {
      expect(limiter.check('k')).toEqual({ allowed: true });
      limiter.record('k');
      now += 10_000;
    }
    // Events at 0 s, 10 s, 20 s; now 30 s: the first frees up at 60 s.
    expect(limiter.check('k')).toEqual({ allowed: false, retryAfterSeconds: 30 });
    expect(limiter.check('other')).toEqual({ allowed: true });
    now += 30_000;
    expect(limiter.check('k')).toEqual({ allowed: true });
  });

  it('hit() counts only allowed attempts; reset() forgets a key', () => {
    let now = 0;
    const limiter = new RateLimiter({ limit: 2, windowMs: 1_000 }, () => now);
    expect(limiter.hit('k').allowed).toBe(true);
    expect(limiter.hit('k').allowed).toBe(true);
    expect(limiter.hit('k')).toEqual({ allowed: false, retryAfterSeconds: 1 });
    now = 999;
    expect(limiter.hit('k').allowed).toBe(false);
    now = 1_000;
    expect(limiter.hit('k').allowed).toBe(true);
    expect(limiter.hit('k').allowed).toBe(true);
    expect(limiter.hit('k').allowed).toBe(false);
    limiter.reset('k');
    expect(limiter.hit('k').allowed).toBe(true);
    expect(limiter.hit('k').allowed).toBe(true);
    expect(limiter.hit('k').allowed).toBe(false);
  });
});
