import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { purgeRateLimits, SharedRateLimiter } from '../../src/accounts/rate-limits.js';
import { loadConfig } from '../../src/config.js';
import type { OpenStore } from '../../src/db/store/index.js';
import { testEngine } from '../helpers/engine.js';
import { migratedTestStore, type TestStore } from '../helpers/stores.js';
import { TEST_SECRET_KEY } from '../helpers/temp.js';

const config = loadConfig({ SECRET_KEY: TEST_SECRET_KEY, DATABASE_PATH: '/tmp/unused/rate.db' });
let ctx: TestStore;
let db: OpenStore;
beforeAll(async () => {
  ctx = await migratedTestStore(testEngine());
  db = ctx.store;
});
afterAll(() => ctx.cleanup());

describe(`rate limits counted in the database (${testEngine()})`, () => {
  it('hit() lets exactly the limit through, even 40 at once from two connections', async () => {
    const other = ctx.reopen();
    const rule = { limit: 10, windowMs: 60 * 60_000 };
    const limiters = [db, other].map((store) => new SharedRateLimiter(store, config, 'concurrent', rule));
    const outcomes = await Promise.all(
      Array.from({ length: 40 }, (_, i) => (limiters[i % 2] as SharedRateLimiter).hit('198.51.100.7')),
    );
    expect(outcomes.filter((o) => o.allowed)).toHaveLength(10);
    const refused = outcomes.find((o) => !o.allowed);
    expect(refused).toMatchObject({ allowed: false });
    expect(refused && !refused.allowed && refused.retryAfterSeconds).toBeGreaterThan(0);
    // Another key, and another limit on the same key, count apart.
    expect((await limiters[0]?.hit('198.51.100.8'))?.allowed).toBe(true);
    expect((await new SharedRateLimiter(db, config, 'other-limit', rule).hit('198.51.100.7')).allowed).toBe(
      true,
    );
  });

  it('hit() counts across windows, giveBack() uncounts one, reset() forgets', async () => {
    let now = 10 * 60_000;
    const limiter = new SharedRateLimiter(db, config, 'failures', { limit: 2, windowMs: 60_000 }, () => now);
    const key = 'ada@example.com';
    const first = await limiter.hit(key);
    expect(first.allowed).toBe(true);
    expect((await limiter.hit(key)).allowed).toBe(true);
    expect((await limiter.hit(key)).allowed).toBe(false);
    // Given back, the one slot is free again (and only that one).
    if (first.allowed) await first.giveBack();
    expect((await limiter.hit(key)).allowed).toBe(true);
    expect((await limiter.hit(key)).allowed).toBe(false);
    // Within the next window the two still weigh; once it has passed they are gone.
    now += 60_000;
    expect((await limiter.hit(key)).allowed).toBe(false);
    now += 60_000;
    expect((await limiter.hit(key)).allowed).toBe(true);
    await limiter.reset(key);
    expect((await limiter.hit(key)).allowed).toBe(true);
    expect((await limiter.hit(key)).allowed).toBe(true);
  });

  it('giveBack() never takes a counter below zero, nor from a window after the one it reserved in', async () => {
    let now = 30 * 60_000;
    const limiter = new SharedRateLimiter(db, config, 'give-back', { limit: 1, windowMs: 60_000 }, () => now);
    const reserved = await limiter.hit('198.51.100.9');
    if (!reserved.allowed) throw new Error('refused');
    await reserved.giveBack();
    await reserved.giveBack();
    expect((await limiter.hit('198.51.100.9')).allowed).toBe(true);
    expect((await limiter.hit('198.51.100.9')).allowed).toBe(false);
    now += 2 * 60_000;
    const later = await limiter.hit('198.51.100.9');
    expect(later.allowed).toBe(true);
    await reserved.giveBack();
    expect((await limiter.hit('198.51.100.9')).allowed).toBe(false);
  });

  it('stores an HMAC of what it counts, never the address itself, and purges old windows', async () => {
    const limiter = new SharedRateLimiter(db, config, 'stored', { limit: 5, windowMs: 60_000 }, () => 1_000);
    await limiter.hit('grace@example.com');
    const rows = await db.orm.select().from(db.t.rateLimitHits);
    expect(JSON.stringify(rows)).not.toContain('grace@example.com');
    expect(await purgeRateLimits(db, 1_000)).toBe(0);
    expect(await purgeRateLimits(db, 1_000 + 3 * 60_000)).toBeGreaterThanOrEqual(1);
    expect(JSON.stringify(await db.orm.select().from(db.t.rateLimitHits))).not.toContain('"windowStart":0');
  });
});
