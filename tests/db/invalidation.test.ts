import { sql } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  EVERYTHING,
  grantSubject,
  type InvalidationWatch,
  memberSubject,
  type OpenStore,
  parseSubject,
  workspaceSubject,
} from '../../src/db/store/index.js';
import { ENGINES, migratedTestStore, type TestStore } from '../helpers/stores.js';
import { seedUser } from './seed.js';

/** A watcher that records every subject and can wait for the next one (no timers: the event itself). */
function recorder(store: OpenStore) {
  const seen: string[] = [];
  let waiters: Array<{ match: (s: string) => boolean; resolve: () => void }> = [];
  const watch: InvalidationWatch = store.watchInvalidations((subject) => {
    seen.push(subject);
    const ready = waiters.filter((w) => w.match(subject));
    waiters = waiters.filter((w) => !w.match(subject));
    for (const w of ready) w.resolve();
  });
  return {
    seen,
    watch,
    /** Resolves when a subject `match` accepts arrives (or has arrived since `from`). */
    until(match: (s: string) => boolean, from = 0): Promise<void> {
      if (seen.slice(from).some(match)) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ match, resolve }));
    },
  };
}

describe('invalidation subjects', () => {
  it('parse back to what they name; anything unknown is everything', () => {
    expect(parseSubject(grantSubject('g1'))).toEqual({ kind: 'grant', grantId: 'g1' });
    expect(parseSubject(workspaceSubject('w1'))).toEqual({ kind: 'workspace', workspaceId: 'w1' });
    expect(parseSubject(memberSubject('w1', 'u:1'))).toEqual({
      kind: 'member',
      workspaceId: 'w1',
      userId: 'u:1',
    });
    for (const odd of [EVERYTHING, '', 'grant:', 'member:w1', 'table:x', 'nonsense'])
      expect(parseSubject(odd)).toEqual({ kind: 'everything' });
  });
});

describe.each(ENGINES)('invalidations on %s', (engine) => {
  let ctx: TestStore;
  beforeEach(async () => {
    ctx = await migratedTestStore(engine);
  });
  afterEach(async () => {
    await ctx.cleanup();
  });

  /** On PostgreSQL a watch answers only once it listens, which it says with EVERYTHING. */
  async function listening(store: OpenStore) {
    const r = recorder(store);
    if (engine === 'postgres') {
      expect(r.watch.check()).toBe(false);
      await r.until((s) => s === EVERYTHING);
    }
    expect(r.watch.check()).toBe(true);
    r.seen.length = 0;
    return r;
  }

  it('the root handle delivers to this process’s watchers at once, before invalidate() even resolves', async () => {
    const r = await listening(ctx.store);
    const sent = ctx.store.invalidate(grantSubject('g1'));
    expect(r.seen).toEqual(['grant:g1']);
    await sent;
    await r.watch.stop();
    await ctx.store.invalidate(grantSubject('g2'));
    expect(r.seen).toEqual(['grant:g1']);
  });

  it('a transaction delivers after its commit, every subject once; a rollback delivers nothing', async () => {
    const r = await listening(ctx.store);
    const { userId } = await seedUser(ctx.store, 'ada');
    await ctx.store.transaction(async (tx) => {
      await tx.orm.update(tx.t.users).set({ updatedAt: 1 }).where(sql`${tx.t.users.id} = ${userId}`);
      await tx.invalidate(memberSubject('w1', userId));
      await tx.transaction(async (inner) => inner.invalidate(workspaceSubject('w1')));
      await tx.invalidate(memberSubject('w1', userId));
      expect(r.seen).toEqual([]);
    });
    expect(r.seen).toEqual([`member:w1:${userId}`, 'workspace:w1']);
    r.seen.length = 0;
    await expect(
      ctx.store.transaction(async (tx) => {
        await tx.invalidate(grantSubject('rolled-back'));
        throw new Error('no');
      }),
    ).rejects.toThrow('no');
    expect(r.seen).toEqual([]);
  });

  it('a transaction’s handle refuses to invalidate once the transaction has ended', async () => {
    let leaked: OpenStore | undefined;
    await ctx.store.transaction(async (tx) => {
      leaked = tx as OpenStore;
    });
    await expect(leaked?.invalidate(grantSubject('late'))).rejects.toThrow(/has ended/);
  });

  if (engine === 'sqlite') {
    it('a commit by another connection to the file reaches check() as everything; this connection’s own writes and reads do not', async () => {
      const r = await listening(ctx.store);
      await seedUser(ctx.store, 'own');
      await ctx.store.orm.select().from(ctx.store.t.users);
      expect(r.watch.check()).toBe(true);
      expect(r.seen).toEqual([]);
      const other = ctx.reopen();
      await seedUser(other, 'other');
      expect(r.seen).toEqual([]);
      expect(r.watch.check()).toBe(true);
      expect(r.seen).toEqual([EVERYTHING]);
      expect(r.watch.check()).toBe(true);
      expect(r.seen).toEqual([EVERYTHING]);
    });
  }

  if (engine === 'postgres') {
    it('another instance’s invalidations arrive by NOTIFY, a rolled-back one never, and a store never hears its own twice', async () => {
      const a = await listening(ctx.store);
      const other = ctx.reopen();
      const b = await listening(other);
      await ctx.store.invalidate(grantSubject('from-a'));
      await expect(
        other.transaction(async (tx) => {
          await tx.invalidate(grantSubject('rolled-back'));
          throw new Error('no');
        }),
      ).rejects.toThrow('no');
      await other.transaction(async (tx) => tx.invalidate(workspaceSubject('from-b')));
      // Notifications of one session arrive in commit order: by the time from-b arrives, the other
      // two would have.
      await a.until((s) => s === 'workspace:from-b');
      await b.until((s) => s === 'grant:from-a');
      expect(a.seen).toEqual(['grant:from-a', 'workspace:from-b']);
      expect(b.seen).toEqual(['grant:from-a', 'workspace:from-b']);
    });

    it('while the listening connection is down nothing cached may be trusted; once it listens again, everything is dropped', async () => {
      const r = await listening(ctx.store);
      const admin = ctx.reopen();
      await admin.orm.execute(
        sql`select pg_terminate_backend(pid) from pg_stat_activity
            where application_name = 'social-intel-mcp invalidations' and datname = current_database()`,
      );
      await r.until((s) => s === EVERYTHING);
      expect(r.watch.check()).toBe(false);
      const from = r.seen.length;
      await r.until((s) => s === EVERYTHING, from);
      expect(r.watch.check()).toBe(true);
      await admin.invalidate(grantSubject('after'));
      await r.until((s) => s === 'grant:after');
    });
  }
});
