import { createHmac } from 'node:crypto';
import { and, eq, gt, inArray, lt, sql } from 'drizzle-orm';
import type { Config } from '../config.js';
import { deleteInBatches } from '../db/batches.js';
import type { Store } from '../db/store/index.js';
import { derivedKey } from '../security/derived-keys.js';
import {
  currentWindowCap,
  type RateLimitDecision,
  type RateLimitRule,
  rateLimitDecision,
  windowStartOf,
} from '../security/rate-limit.js';

export type { RateLimitDecision, RateLimitRule };

/** An allowed hit: the event is counted; `giveBack` uncounts it when what it guarded turned out fine. */
export type Reserved = { allowed: true; giveBack(): Promise<void> };
export type HitOutcome = Reserved | Extract<RateLimitDecision, { allowed: false }>;

/**
 * A rate limit whose counters live in the database (rate_limit_hits), so N instances give an attacker
 * the same budget as one, not N times it. Counters are per fixed window; the decision uses the
 * two-window estimate of security/rate-limit.ts. What is counted (an email, an IP address) is stored
 * only as an HMAC under a key derived from SECRET_KEY, which every instance shares.
 *
 * There is no "check, then record later": requests arriving together would all pass a check made
 * before any of them was counted. hit() reserves first, in the statement that decides; a limit on
 * failures (a wrong password) reserves before the expensive work and gives the reservation back when
 * the attempt succeeds.
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

  /**
   * Counts one event for `key` if it is allowed, atomically. Of any number of concurrent hits on any
   * number of instances, no more pass than the limit allows: the count and the decision are one
   * conditional upsert, whose conflict branch re-checks the counter under the row lock.
   */
  async hit(key: string): Promise<HitOutcome> {
    const now = this.now();
    const start = windowStartOf(now, this.rule.windowMs);
    const hashed = this.keyOf(key);
    const { previous } = await this.counts(hashed, start, false);
    const cap = currentWindowCap(this.rule, now, previous);
    if (cap > 0 && (await this.increment(hashed, start, cap))) {
      return { allowed: true, giveBack: () => this.decrement(hashed, start) };
    }
    const { current } = await this.counts(hashed, start);
    const decision = rateLimitDecision(this.rule, now, {
      windowStart: start,
      previous,
      current: Math.max(current, cap),
    });
    return decision.allowed ? { allowed: false, retryAfterSeconds: 1 } : decision;
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

  /** Adds one to the window's counter, only while it is below `cap`. */
  private async increment(key: string, start: number, cap: number): Promise<boolean> {
    const { rateLimitHits: r } = this.db.t;
    const rows = await this.db.orm
      .insert(r)
      .values({ key, windowStart: start, hits: 1, expiresAt: start + 2 * this.rule.windowMs })
      .onConflictDoUpdate({
        target: [r.key, r.windowStart],
        set: { hits: sql`${r.hits} + 1` },
        setWhere: lt(r.hits, cap),
      })
      .returning({ hits: r.hits });
    return rows.length === 1;
  }

  /** Takes back one event counted in the window that started at `start` (never below zero). */
  private async decrement(key: string, start: number): Promise<void> {
    const { rateLimitHits: r } = this.db.t;
    await this.db.orm
      .update(r)
      .set({ hits: sql`${r.hits} - 1` })
      .where(and(eq(r.key, key), eq(r.windowStart, start), gt(r.hits, 0)));
  }
}

/**
 * Deletes counters whose windows can no longer matter (housekeeping), in batches: the expired rows of
 * a batch of keys found by the expiry index.
 */
export function purgeRateLimits(db: Store, now = Date.now()): Promise<number> {
  const { rateLimitHits: r } = db.t;
  return deleteInBatches(db.engine, async (batch) => {
    const keys = await db.orm.select({ key: r.key }).from(r).where(lt(r.expiresAt, now)).limit(batch);
    if (!keys.length) return 0;
    const gone = await db.orm
      .delete(r)
      .where(
        and(
          inArray(
            r.key,
            keys.map((k) => k.key),
          ),
          lt(r.expiresAt, now),
        ),
      )
      .returning({ key: r.key });
    return gone.length;
  });
}
