import { createHmac } from 'node:crypto';
import { and, eq, inArray, lt, sql } from 'drizzle-orm';
import type { Config } from '../config.js';
import type { Store } from '../db/store/index.js';
import { derivedKey } from '../security/derived-keys.js';
import {
  currentWindowCap,
  decide,
  type RateLimitDecision,
  type RateLimitRule,
  windowStartOf,
} from '../security/rate-limit.js';

export type { RateLimitDecision, RateLimitRule };

/**
 * A rate limit whose counters live in the database (rate_limit_hits), so N instances give an attacker
 * the same budget as one, not N times it. Counters are per fixed window; the decision uses the
 * two-window estimate of security/rate-limit.ts. What is counted (an email, an IP address) is stored
 * only as an HMAC under a key derived from SECRET_KEY, which every instance shares.
 *
 * check() then record() leave a small race (two failures checked at once both pass), as with any
 * limit on failures; hit() is exact: the count and the decision are one conditional upsert.
 */
export class SharedRateLimiter {
  private readonly hmacKey: Buffer;

  constructor(
    private readonly db: Store,
    config: Config,
    /** Names the limit, so two limits on the same value count apart. */
    private readonly name: string,
    readonly rule: RateLimitRule,
    private readonly now: () => number = Date.now,
  ) {
    this.hmacKey = derivedKey(config, 'social-intel-mcp rate-limit v1');
  }

  /** Whether one more event for `key` would be allowed right now (records nothing). */
  async check(key: string): Promise<RateLimitDecision> {
    const now = this.now();
    const start = windowStartOf(now, this.rule.windowMs);
    const counts = await this.counts(this.keyOf(key), start);
    return decide(this.rule, now, { windowStart: start, ...counts });
  }

  /** Records one event for `key`. */
  async record(key: string): Promise<void> {
    const now = this.now();
    await this.increment(this.keyOf(key), windowStartOf(now, this.rule.windowMs), null);
  }

  /**
   * Records one event for `key` if it is allowed, atomically: for limits on attempts rather than on
   * failures. Of any number of concurrent hits on any number of instances, no more pass than the
   * limit allows (the upsert's conflict branch re-checks the counter under the row lock).
   */
  async hit(key: string): Promise<RateLimitDecision> {
    const now = this.now();
    const start = windowStartOf(now, this.rule.windowMs);
    const hashed = this.keyOf(key);
    const { previous } = await this.counts(hashed, start, false);
    const cap = currentWindowCap(this.rule, now, previous);
    if (cap > 0 && (await this.increment(hashed, start, cap))) return { allowed: true };
    const { current } = await this.counts(hashed, start);
    return decide(this.rule, now, { windowStart: start, previous, current: Math.max(current, cap) });
  }

  /** Forgets `key` (a successful sign-in clears its failures). */
  async reset(key: string): Promise<void> {
    const { rateLimitHits: r } = this.db.t;
    await this.db.orm.delete(r).where(eq(r.key, this.keyOf(key)));
  }

  private keyOf(key: string): string {
    return createHmac('sha256', this.hmacKey).update(`${this.name}\0${key}`).digest('base64url');
  }

  /** The previous and (unless `withCurrent` is false) the current window's counters. */
  private async counts(key: string, start: number, withCurrent = true) {
    const { rateLimitHits: r } = this.db.t;
    const previousStart = start - this.rule.windowMs;
    const rows = await this.db.orm
      .select({ windowStart: r.windowStart, hits: r.hits })
      .from(r)
      .where(
        and(eq(r.key, key), inArray(r.windowStart, withCurrent ? [previousStart, start] : [previousStart])),
      );
    const of = (s: number) => rows.find((row) => row.windowStart === s)?.hits ?? 0;
    return { previous: of(start - this.rule.windowMs), current: of(start) };
  }

  /** Adds one to the window's counter, only while it is below `cap` (null: always). */
  private async increment(key: string, start: number, cap: number | null): Promise<boolean> {
    const { rateLimitHits: r } = this.db.t;
    const rows = await this.db.orm
      .insert(r)
      .values({ key, windowStart: start, hits: 1, expiresAt: start + 2 * this.rule.windowMs })
      .onConflictDoUpdate({
        target: [r.key, r.windowStart],
        set: { hits: sql`${r.hits} + 1` },
        ...(cap === null ? {} : { setWhere: lt(r.hits, cap) }),
      })
      .returning({ hits: r.hits });
    return rows.length === 1;
  }
}

/** Deletes counters whose windows can no longer matter (housekeeping). */
export async function purgeRateLimits(db: Store, now = Date.now()): Promise<number> {
  const { rateLimitHits: r } = db.t;
  const gone = await db.orm.delete(r).where(lt(r.expiresAt, now)).returning({ key: r.key });
  return gone.length;
}
