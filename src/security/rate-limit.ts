/**
 * In-memory sliding-window rate limiter. Per instance (DESIGN.md §7 allows per-instance counters):
 * behind N instances an attacker gets at most N times the budget, which still stops brute force.
 *
 * Each key keeps the timestamps of its last `limit` events, so memory per key is bounded and the
 * window slides exactly (no burst of 2 × limit at a fixed-window boundary).
 */
export interface RateLimitRule {
  /** Events allowed within the window. */
  limit: number;
  windowMs: number;
}

export type RateLimitDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/** Above this many keys, expired ones are swept; above twice as many, the oldest are dropped. */
const MAX_KEYS = 50_000;

export class RateLimiter {
  private readonly events = new Map<string, number[]>();

  constructor(
    readonly rule: RateLimitRule,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether one more event for `key` would be allowed right now (records nothing). */
  check(key: string): RateLimitDecision {
    const now = this.now();
    const recent = this.recent(key, now);
    if (recent.length < this.rule.limit) return { allowed: true };
    const oldest = recent[recent.length - this.rule.limit] ?? now;
    return {
      allowed: false,
      retryAfterSeconds: Math.max(1, Math.ceil((oldest + this.rule.windowMs - now) / 1000)),
    };
  }

  /** Records one event for `key`. */
  record(key: string): void {
    const now = this.now();
    const recent = this.recent(key, now);
    recent.push(now);
    if (recent.length > this.rule.limit) recent.splice(0, recent.length - this.rule.limit);
    // Re-insert so Map order approximates least-recently-used for the overflow sweep.
    this.events.delete(key);
    this.events.set(key, recent);
    if (this.events.size > MAX_KEYS) this.sweep(now);
  }

  /** check() then record() when allowed: for limits on attempts rather than on failures. */
  hit(key: string): RateLimitDecision {
    const decision = this.check(key);
    if (decision.allowed) this.record(key);
    return decision;
  }

  reset(key: string): void {
    this.events.delete(key);
  }

  private recent(key: string, now: number): number[] {
    const list = this.events.get(key);
    if (!list) return [];
    const cutoff = now - this.rule.windowMs;
    let drop = 0;
    while (drop < list.length && (list[drop] ?? 0) <= cutoff) drop++;
    if (drop) list.splice(0, drop);
    return list;
  }

  private sweep(now: number): void {
    for (const key of this.events.keys()) {
      if (this.recent(key, now).length === 0) this.events.delete(key);
    }
    for (const key of this.events.keys()) {
      if (this.events.size <= MAX_KEYS) break;
      this.events.delete(key);
    }
  }
}
