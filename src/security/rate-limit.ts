/**
 * The arithmetic of the shared rate limits (accounts/rate-limits.ts keeps the counters in the database,
 * so a limit holds across every instance). Events are counted in fixed windows of `windowMs`; the
 * sliding window is estimated as the current window's count plus the previous window's, weighted by
 * how much of it still overlaps the last `windowMs` (the two-window estimate: exact for a steady rate,
 * and without the burst of 2 × limit a plain fixed window allows at its boundary).
 */
export interface RateLimitRule {
  /** Events allowed within the window. */
  limit: number;
  windowMs: number;
}

export type RateLimitDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

export interface WindowCounts {
  /** Start of the current fixed window. */
  windowStart: number;
  previous: number;
  current: number;
}

export function windowStartOf(now: number, windowMs: number): number {
  return Math.floor(now / windowMs) * windowMs;
}

/** The weight of the previous window at `now`: the share of it still inside the sliding window. */
function previousWeight(now: number, windowStart: number, windowMs: number): number {
  return 1 - (now - windowStart) / windowMs;
}

/**
 * How many events the current window may still count now: one more is allowed while the current
 * count is below this, i.e. while the estimate with that one more stays within the limit
 * (previous × weight + current + 1 ≤ limit). A whole number, so the database can compare its integer
 * counter to it.
 */
export function currentWindowCap(rule: RateLimitRule, now: number, previous: number): number {
  const start = windowStartOf(now, rule.windowMs);
  return Math.floor(rule.limit - previous * previousWeight(now, start, rule.windowMs));
}

/** Whether one more event is allowed with these counts, and if not, how long until it is. */
export function rateLimitDecision(rule: RateLimitRule, now: number, counts: WindowCounts): RateLimitDecision {
  if (counts.current < currentWindowCap(rule, now, counts.previous)) return { allowed: true };
  return { allowed: false, retryAfterSeconds: retryAfterSeconds(rule, now, counts) };
}

/**
 * Seconds until the estimate falls below the limit, if nothing more is counted meanwhile — never more
 * than one window: every event counted so far has left the sliding window by then, so that is the
 * longest a person is told to wait ("10 per 15 minutes" means at most 15 minutes). Early in a window
 * the estimate (which spreads a window's events evenly over it) can refuse a little past that, by at
 * most (1 − (limit − 1) / count) of a window; such a retry gets a fresh, short Retry-After.
 */
function retryAfterSeconds(rule: RateLimitRule, now: number, counts: WindowCounts): number {
  const { windowMs, limit } = rule;
  let at: number;
  if (counts.current < limit && counts.previous > 0) {
    // Within this window, as the previous one's weight decays: previous × w(t) + current + 1 ≤ limit.
    at = counts.windowStart + windowMs * (1 - (limit - counts.current - 1) / counts.previous);
  } else {
    // This window alone is full: in the next one it becomes the previous, decaying the same way.
    at = counts.windowStart + windowMs + windowMs * (1 - (limit - 1) / Math.max(counts.current, limit));
  }
  return Math.max(1, Math.min(Math.ceil((at - now) / 1000), Math.ceil(windowMs / 1000)));
}
