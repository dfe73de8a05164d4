import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/logger.js';
import { purgeRecentSubmits, REUSE_WINDOW_MS, RecentSubmits } from '../../../src/mcp/reuse/recent-submits.js';
import { canonicalJson, submitKey } from '../../../src/mcp/reuse/submit-key.js';
import type { LongWork, ToolContext } from '../../../src/mcp/tools/types.js';
import { testEngine } from '../../helpers/engine.js';
import { migratedTestStore, type TestStore } from '../../helpers/stores.js';

/**
 * Reuse of identical submits (src/mcp/reuse/recent-submits.ts) on the store of this run's engine, with
 * a clock the test moves: what counts as the same work, the 10-minute window after the work was last
 * seen, exactly one creation among parallel submits on two stores of one database (two instances), a
 * reservation whose holder died, a failed creation, `force_new: true`, and the purge.
 */
let ts: TestStore;
let clock = Date.UTC(2026, 2, 2, 10, 0, 0);
const now = () => clock;
const logger = createLogger('silent');
/** The keyed hash's key (the server derives it from SECRET_KEY); every instance of one server shares it. */
const HASH_KEY = randomBytes(32);
const reuseOn = (store: TestStore['store']) => new RecentSubmits(store, logger, HASH_KEY, now);

beforeAll(async () => {
  ts = await migratedTestStore(testEngine());
});
afterAll(async () => {
  await ts?.cleanup();
});

type Args = { query: string; platforms?: string[]; force_new?: boolean };

/** A search tool's long work whose creations are counted; ids count up. */
function counted(delayMs = 0, fail = false) {
  let created = 0;
  const work: LongWork<Args> = {
    kind: 'keyword_search',
    limit: 'searchMaxWaitMs',
    identity: (a, today) => ({ query: a.query, platforms: [...(a.platforms ?? ['twitter'])].sort(), today }),
    async start() {
      await new Promise((r) => setTimeout(r, delayMs));
      if (fail) throw new Error('402 from upstream');
      created += 1;
      return { id: 1000 + created, fresh: true };
    },
    find: async () => [],
    settle: async () => ({ output: { data: {}, text: '' }, ended: 'done' }),
  };
  return { work, created: () => created };
}

const ctx = (token = 'token-a', userId = 'analyst-1') =>
  ({ creds: { token, userId }, signal: new AbortController().signal }) as unknown as ToolContext;

describe('reuse of identical submits', () => {
  it('the same credential, tool and arguments after defaults reuse the work; anything else does not', async () => {
    const reuse = reuseOn(ts.store);
    const { work, created } = counted();
    const a = await reuse.start('submit_keyword_search', work, { query: 'heat pumps' }, ctx());
    expect(a.reused).toBeNull();
    clock += 30_000;
    // The default written out, and platforms in another order: the same work.
    const b = await reuse.start(
      'submit_keyword_search',
      work,
      { query: 'heat pumps', platforms: ['twitter'] },
      ctx(),
    );
    expect(b.job.id).toBe(a.job.id);
    expect(b.reused).toEqual({ ageMs: 30_000 });
    const c = await reuse.start(
      'submit_keyword_search',
      work,
      { query: 'heat pumps', platforms: ['reddit', 'twitter'] },
      ctx(),
    );
    const d = await reuse.start(
      'submit_keyword_search',
      work,
      { query: 'heat pumps' },
      ctx('token-a', 'analyst-2'),
    );
    const e = await reuse.start('submit_keyword_search', work, { query: 'heat pumps' }, ctx('token-b'));
    const f = await reuse.start('submit_user_search', work, { query: 'heat pumps' }, ctx());
    for (const other of [c, d, e, f]) expect(other.reused).toBeNull();
    expect(created()).toBe(5);
    // Asked for explicitly: a new one, which later identical submits then find.
    const g = await reuse.start(
      'submit_keyword_search',
      work,
      { query: 'heat pumps', force_new: true },
      ctx(),
    );
    expect(g.reused).toBeNull();
    expect(g.job.id).not.toBe(a.job.id);
    const h = await reuse.start('submit_keyword_search', work, { query: 'heat pumps' }, ctx());
    expect(h.job.id).toBe(g.job.id);
    expect(created()).toBe(6);
  });

  it('reuses for 10 minutes after the work was last seen running, or first seen ended', async () => {
    const reuse = reuseOn(ts.store);
    const { work, created } = counted();
    const args = { query: 'window' };
    const first = await reuse.start('submit_keyword_search', work, args, ctx());
    clock += REUSE_WINDOW_MS - 1_000;
    await reuse.seen('keyword_search', first.job.id, 'running');
    clock += REUSE_WINDOW_MS - 1_000;
    expect((await reuse.start('submit_keyword_search', work, args, ctx())).job.id).toBe(first.job.id);
    await reuse.seen('keyword_search', first.job.id, 'ended');
    // Once ended, later sightings do not extend it.
    clock += REUSE_WINDOW_MS - 1_000;
    await reuse.seen('keyword_search', first.job.id, 'running');
    await reuse.seen('keyword_search', first.job.id, 'ended');
    expect((await reuse.start('submit_keyword_search', work, args, ctx())).job.id).toBe(first.job.id);
    clock += 2_000;
    const later = await reuse.start('submit_keyword_search', work, args, ctx());
    expect(later.reused).toBeNull();
    expect(later.job.id).not.toBe(first.job.id);
    expect(created()).toBe(2);
    // Work nobody looked at for 10 minutes is not reused either.
    clock += REUSE_WINDOW_MS + 1;
    expect((await reuse.start('submit_keyword_search', work, args, ctx())).reused).toBeNull();
    expect(created()).toBe(3);
  });

  it('work seen failed is never reused: the next identical submit creates it anew', async () => {
    const reuse = reuseOn(ts.store);
    const { work, created } = counted();
    const args = { query: 'failed once' };
    const first = await reuse.start('submit_keyword_search', work, args, ctx());
    await reuse.seen('keyword_search', first.job.id, 'failed');
    const next = await reuse.start('submit_keyword_search', work, args, ctx());
    expect(next.reused).toBeNull();
    expect(next.job.id).not.toBe(first.job.id);
    expect(created()).toBe(2);
  });

  it('of 20 parallel identical submits on two stores of one database, exactly one creates the work', async () => {
    const other = ts.reopen();
    const { work, created } = counted(150);
    const instances = [reuseOn(ts.store), reuseOn(other)];
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        (instances[i % 2] as RecentSubmits).start(
          'submit_keyword_search',
          work,
          { query: 'parallel' },
          ctx(),
        ),
      ),
    );
    expect(created()).toBe(1);
    expect(new Set(results.map((r) => r.job.id)).size).toBe(1);
    expect(results.filter((r) => r.reused === null)).toHaveLength(1);
  });

  it('a failed creation gives the key back; a reservation whose holder died is taken over', async () => {
    const reuse = reuseOn(ts.store);
    const failing = counted(0, true);
    await expect(
      reuse.start('submit_keyword_search', failing.work, { query: 'broke' }, ctx()),
    ).rejects.toThrow('402');
    const { work, created } = counted();
    expect((await reuse.start('submit_keyword_search', work, { query: 'broke' }, ctx())).reused).toBeNull();
    expect(created()).toBe(1);

    // A holder that reserved and died (its row stays reserved, no id): after a minute it is taken over.
    const key = submitKey(HASH_KEY, { token: 'token-a', userId: 'analyst-1' }, 'submit_keyword_search', {
      query: 'orphan',
      platforms: ['twitter'],
      today: new Date(clock).toISOString().slice(0, 10),
    });
    await ts.store.orm.insert(ts.store.t.recentSubmits).values({
      keyHash: key,
      kind: 'keyword_search',
      jobId: null,
      holder: 'dead-instance',
      createdAt: clock - 61_000,
      seenRunningAt: clock - 61_000,
      finishedAt: null,
      expiresAt: clock + REUSE_WINDOW_MS,
    });
    const taken = await reuse.start('submit_keyword_search', work, { query: 'orphan' }, ctx());
    expect(taken.reused).toBeNull();
    expect(created()).toBe(2);
  });

  it('keys hold no token, and equal values give equal keys whatever their key order', () => {
    const key = submitKey(HASH_KEY, { token: 'secret-token', userId: 'u' }, 'tool', {
      b: 1,
      a: [2, { d: 3, c: 4 }],
    });
    expect(key).not.toContain('secret');
    expect(key).toBe(
      submitKey(HASH_KEY, { token: 'secret-token', userId: 'u' }, 'tool', { a: [2, { c: 4, d: 3 }], b: 1 }),
    );
    expect(canonicalJson({ b: undefined, a: null })).toBe('{"a":null}');
  });

  it('stores a keyed hash: not the plain SHA-256 of what it covers, and another key gives another', async () => {
    const { work } = counted();
    await reuseOn(ts.store).start(
      'submit_keyword_search',
      work,
      { query: 'keyed hash' },
      ctx('token-k', 'user-k'),
    );
    const identity = {
      query: 'keyed hash',
      platforms: ['twitter'],
      today: new Date(clock).toISOString().slice(0, 10),
    };
    const plain = createHash('sha256')
      .update('token-k\u0000user-k\u0000submit_keyword_search\u0000')
      .update(canonicalJson(identity))
      .digest('base64url');
    const stored = (await ts.store.orm.select().from(ts.store.t.recentSubmits)).map((row) => row.keyHash);
    expect(stored).not.toContain(plain);
    const keyed = submitKey(
      HASH_KEY,
      { token: 'token-k', userId: 'user-k' },
      'submit_keyword_search',
      identity,
    );
    expect(stored).toContain(keyed);
    expect(
      submitKey(randomBytes(32), { token: 'token-k', userId: 'user-k' }, 'submit_keyword_search', identity),
    ).not.toBe(keyed);
  });

  it('housekeeping deletes rows past their reuse', async () => {
    const before = (await ts.store.orm.select().from(ts.store.t.recentSubmits)).length;
    expect(before).toBeGreaterThan(0);
    expect(await purgeRecentSubmits(ts.store, clock + 24 * 3_600_000)).toBe(before);
    expect(await ts.store.orm.select().from(ts.store.t.recentSubmits)).toEqual([]);
  });
});
