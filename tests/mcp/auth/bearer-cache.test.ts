import { sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import {
  EVERYTHING,
  grantSubject,
  memberSubject,
  openPostgresStore,
  workspaceSubject,
} from '../../../src/db/store/index.js';
import { BearerCache } from '../../../src/mcp/auth/bearer-cache.js';
import { mintAccessToken } from '../../../src/oauth/access-tokens.js';
import { accepted, cachedCheck, heard, issueTokens, person } from '../../helpers/bearer-fixture.js';
import { testEngine } from '../../helpers/engine.js';
import { oauthFixture } from '../../helpers/oauth-fixture.js';

const fx = oauthFixture();
const closing: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const c of closing.splice(0)) await c.close();
});
async function check(options?: { ttlMs: number; maxEntries: number }) {
  const c = await cachedCheck(fx.server, options);
  closing.push(c);
  return c;
}

describe('BearerCache', () => {
  const owner = (grantId: string, workspaceId: string, userId: string) => ({ grantId, workspaceId, userId });

  it('keeps an answer for its lifetime, and only while nothing was invalidated since the lookup began', () => {
    const cache = new BearerCache<string>({ ttlMs: 1_000, maxEntries: 10 });
    cache.store('a', cache.stamp(), owner('g1', 'w1', 'u1'), 'A', 0);
    expect(cache.get('a', 999)).toBe('A');
    expect(cache.get('a', 1_000)).toBeUndefined();
    const stamp = cache.stamp();
    cache.invalidate(grantSubject('unrelated'));
    cache.store('b', stamp, owner('g2', 'w1', 'u1'), 'B', 0);
    expect(cache.get('b', 0)).toBeUndefined();
  });

  it('drops what a subject names and nothing else; everything (or a subject it cannot read) drops all', () => {
    const cache = new BearerCache<string>({ ttlMs: 1_000, maxEntries: 10 });
    const fill = () => {
      cache.invalidate(EVERYTHING);
      cache.store('g1', cache.stamp(), owner('g1', 'w1', 'u1'), 'g1', 0);
      cache.store('g2', cache.stamp(), owner('g2', 'w1', 'u2'), 'g2', 0);
      cache.store('g3', cache.stamp(), owner('g3', 'w2', 'u1'), 'g3', 0);
    };
    const left = () => ['g1', 'g2', 'g3'].filter((k) => cache.get(k, 0) !== undefined);
    fill();
    cache.invalidate(grantSubject('g2'));
    expect(left()).toEqual(['g1', 'g3']);
    fill();
    cache.invalidate(memberSubject('w1', 'u1'));
    expect(left()).toEqual(['g2', 'g3']);
    fill();
    cache.invalidate(workspaceSubject('w1'));
    expect(left()).toEqual(['g3']);
    fill();
    cache.invalidate('shape:from-a-newer-version');
    expect(left()).toEqual([]);
  });

  it('holds at most maxEntries, dropping the oldest', () => {
    const cache = new BearerCache<string>({ ttlMs: 1_000, maxEntries: 2 });
    for (const k of ['a', 'b', 'c']) cache.store(k, cache.stamp(), owner(k, 'w', 'u'), k, 0);
    expect(cache.size).toBe(2);
    expect(cache.get('a', 0)).toBeUndefined();
    expect(cache.get('c', 0)).toBe('c');
  });
});

describe('BearerCheck: valid tokens answered from memory', () => {
  it('a second request with the same token is answered from memory (the same caller), refusals never are', async () => {
    const p = await person(fx.server, 'hit');
    const t = await issueTokens(fx.server, p.id, p.personalId);
    const c = await check();
    const first = accepted(await c.verify(t.accessToken));
    expect(c.cached).toBe(1);
    expect(accepted(await c.verify(t.accessToken))).toBe(first);
    expect((await c.verify('sim_at_unknown')).ok).toBe(false);
    expect((await c.verify(t.refreshToken)).ok).toBe(false);
    expect(c.cached).toBe(1);
  });

  it('an access token made for automation is never kept: every request is looked up, so a revocation holds on any instance from its commit', async () => {
    const p = await person(fx.server, 'automation');
    const { token, grantId } = await mintAccessToken(fx.server.db, {
      userId: p.id,
      workspaceId: p.personalId,
      name: 'ci',
      scopes: ['searches:read'],
      toolsets: null,
      readOnly: false,
      expiresAt: Date.now() + 60_000,
      resource: fx.server.config.resourceUrl,
    });
    const c = await check();
    expect(accepted(await c.verify(token)).grantKind).toBe('access_token');
    expect(accepted(await c.verify(token)).grantId).toBe(grantId);
    expect(c.cached).toBe(0);
  });

  it('expiry is checked on every request, cached or not', async () => {
    const p = await person(fx.server, 'expiry');
    const t = await issueTokens(fx.server, p.id, p.personalId);
    const c = await check();
    const verified = await c.verify(t.accessToken);
    if (!verified.ok) throw new Error('refused');
    expect(await c.verify(t.accessToken, verified.expiresAt)).toEqual({
      ok: false,
      reason: 'The access token has expired.',
    });
  });

  it('last_used_at is written at most once a minute, cached answers included', async () => {
    const p = await person(fx.server, 'last-used');
    const t = await issueTokens(fx.server, p.id, p.personalId);
    const lastUsed = async () =>
      (
        (await fx.server.sql.get('SELECT last_used_at FROM oauth_grants WHERE id = ?', t.grantId)) as {
          last_used_at: number | null;
        }
      ).last_used_at;
    const c = await check();
    const t0 = Date.now();
    accepted(await c.verify(t.accessToken, t0));
    expect(await lastUsed()).toBe(t0);
    accepted(await c.verify(t.accessToken, t0 + 30_000));
    expect(await lastUsed()).toBe(t0);
    expect(c.cached).toBe(1);
    accepted(await c.verify(t.accessToken, t0 + 61_000));
    expect(await lastUsed()).toBe(t0 + 61_000);
  });

  it('a lookup that began before an invalidation does not keep what it read', async () => {
    const p = await person(fx.server, 'race');
    const t = await issueTokens(fx.server, p.id, p.personalId);
    const c = await check();
    // verify() takes its stamp before its first await; the invalidation lands while it reads.
    const pending = c.verify(t.accessToken);
    await fx.server.db.invalidate(grantSubject('some-other-grant'));
    accepted(await pending);
    expect(c.cached).toBe(0);
    accepted(await c.verify(t.accessToken));
    expect(c.cached).toBe(1);
  });

  it('holds at most its maximum number of answers', async () => {
    const c = await check({ ttlMs: 3_600_000, maxEntries: 2 });
    for (const label of ['bound-a', 'bound-b', 'bound-c']) {
      const p = await person(fx.server, label);
      accepted(await c.verify((await issueTokens(fx.server, p.id, p.personalId)).accessToken));
    }
    expect(c.cached).toBe(2);
  });

  // On SQLite there is no connection to lose (invalidation.test.ts covers data_version).
  if (testEngine() === 'postgres')
    it('PostgreSQL: while the listening connection is down nothing is answered from memory; once back, answers are kept again', async () => {
      const p = await person(fx.server, 'listener');
      const t = await issueTokens(fx.server, p.id, p.personalId);
      const c = await check();
      accepted(await c.verify(t.accessToken));
      expect(c.cached).toBe(1);
      const down = heard(fx.server.db, (s) => s === EVERYTHING);
      const admin = openPostgresStore(fx.server.config.databaseUrl as string);
      try {
        await admin.orm.execute(
          sql`select pg_terminate_backend(pid) from pg_stat_activity
              where application_name = 'social-intel-mcp invalidations' and datname = current_database()`,
        );
        await down;
        const back = heard(fx.server.db, (s) => s === EVERYTHING);
        accepted(await c.verify(t.accessToken));
        expect(c.cached).toBe(0);
        await back;
        accepted(await c.verify(t.accessToken));
        expect(c.cached).toBe(1);
        // And a hit still means the same thing: a revocation by another instance is heard.
        const revoked = heard(fx.server.db, (s) => s === grantSubject(t.grantId));
        await admin.invalidate(grantSubject(t.grantId));
        await revoked;
        expect(c.cached).toBe(0);
      } finally {
        await admin.close();
      }
    });
});
