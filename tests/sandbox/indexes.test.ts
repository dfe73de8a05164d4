import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stageOf } from '../../src/sandbox/state/searches.js';
import type { ExpertRecord, SearchRecord } from '../../src/sandbox/state/types.js';
import { type InProc, inProcSandbox } from '../helpers/sandbox-inproc.js';

/**
 * Lists and usage read per-credential indexes instead of scanning every credential's records. With
 * several credentials' records interleaved (and the clock moved back and across months), each answer
 * must equal what a scan of all records finds (the oracle below is the previous implementation).
 */

const T0 = Date.parse('2026-06-10T09:00:00Z');
let s: InProc;
let tokens: string[];

const json = async (path: string, token: string, userId = 'reader') => {
  const res = await s.req('GET', path, { token, userId });
  expect(res.status).toBe(200);
  return JSON.parse(res.text);
};

beforeAll(async () => {
  s = inProcSandbox(T0);
  const store = s.app.sandbox.store;
  tokens = [0, 1, 2].map(() => store.createCredential({ credits: 10_000, producer: true }).token);
  const kinds = ['keyword', 'user', 'expert', 'run'] as const;
  for (let i = 0; i < 90; i++) {
    const token = tokens[(i * 7) % 3] as string;
    const userId = `u${(i * 5) % 4}`;
    const kind = kinds[i % 4];
    if (i === 30) s.clock.set(T0 - 2 * 86_400_000); // moved back: creation order ≠ created_at order
    if (i === 60) s.clock.set(Date.parse('2026-07-02T00:00:00Z')); // next month
    const body = { query: `topic ${i % 6}`, platform: 'twitter', platforms: ['reddit'], max_post: 2 };
    const path =
      kind === 'keyword'
        ? '/api/iq/keyword_search'
        : kind === 'user'
          ? '/api/iq/user_search'
          : kind === 'expert'
            ? '/api/search'
            : '/agent/api/v1/runs';
    const res = await s.req('POST', path, {
      token,
      userId,
      body: kind === 'run' ? { question: `question ${i}`, available_credits: 1 } : body,
    });
    expect(res.status).toBe(201);
    if (i % 11 === 0) await s.control('POST', '/outside-runs', { token, user_id: userId });
    s.advance(700 + (i % 5) * 400);
  }
  for (const [n, token] of tokens.entries()) {
    for (let k = 0; k < 3; k++) {
      const res = await s.req('POST', '/agent/api/v1/schedules', {
        token,
        userId: `u${k}`,
        body: {
          name: `schedule ${n}.${k}`,
          question: 'q',
          recurrence_type: 'daily',
          recurrence_time: '10:00',
          recurrence_timezone: 'UTC',
          starts_at: '2026-08-01T00:00:00Z',
        },
      });
      expect(res.status).toBe(201);
      if (k === 1)
        await s.req('DELETE', `/agent/api/v1/schedules/${JSON.parse(res.text).id}`, { token, userId: 'x' });
    }
  }
});
afterAll(() => s.dispose());

/** The previous GET /api/usage: every record of every credential, filtered. */
function oracleUsage(token: string, from: number, to: number) {
  const store = s.app.sandbox.store;
  const items = [
    ...[...store.keywordSearches.values()].map((r) => ({ ...r, k: 'keyword' })),
    ...[...store.userSearches.values()].map((r) => ({ ...r, k: 'user' })),
    ...[...store.expertSearches.values()].map((r) => ({ ...r, k: 'expert' })),
  ].filter((r) => r.token === token && r.createdAt >= from && r.createdAt <= to);
  const count = (xs: typeof items, k: string) => xs.filter((x) => x.k === k).length;
  const byUser = new Map<string, typeof items>();
  for (const item of items) byUser.set(item.userId, [...(byUser.get(item.userId) ?? []), item]);
  return {
    searches_count: count(items, 'expert'),
    total_iq_searches_count: count(items, 'keyword') + count(items, 'user'),
    usage_by_user: [...byUser.entries()]
      .sort((a, b) => a[0].localeCompare(b[0]))
      .map(([user, xs]) => ({
        user,
        searches_count: count(xs, 'expert'),
        total_iq_searches_counts: count(xs, 'keyword') + count(xs, 'user'),
        iq_keywords_searches_count: count(xs, 'keyword'),
        iq_users_searches_count: count(xs, 'user'),
        last_search: new Date(Math.max(...xs.map((x) => x.createdAt))).toISOString(),
      })),
  };
}

function oracleList<T extends SearchRecord | ExpertRecord>(
  all: Iterable<T>,
  token: string,
  keep: (r: T) => boolean,
) {
  const mine = [...all]
    .filter((r) => r.token === token && keep(r))
    .sort((a, b) => b.createdAt - a.createdAt || b.id - a.id);
  return mine.map((r) => r.id);
}

describe('per-credential indexes', () => {
  it('every credential owns records of every kind, interleaved with the others', () => {
    const store = s.app.sandbox.store;
    for (const token of tokens) {
      const owned = store.ownedBy(token);
      for (const list of [owned.keyword, owned.user, owned.expert, owned.runs]) {
        expect(list.length).toBeGreaterThan(3);
        expect(list.every((r) => r.token === token)).toBe(true);
      }
      // The index holds the records themselves (not copies), in creation order.
      expect(owned.keyword.every((r) => store.keywordSearches.get(r.id) === r)).toBe(true);
      expect(owned.keyword.map((r) => r.id)).toEqual(
        [...owned.keyword.map((r) => r.id)].sort((a, b) => a - b),
      );
      expect(owned.runs.every((r) => store.runs.get(r.id) === r)).toBe(true);
    }
    expect(store.ownedBy('sbx_unknown').keyword).toEqual([]);
  });

  it('usage equals a scan of all records, for the default period and single months', async () => {
    for (const token of tokens) {
      for (const query of ['', '?month=2026-06', '?month=2026-07', '?month=2026-05', '?month=2025-01']) {
        const { period_start, period_end, ...counts } = await json(`/api/usage${query}`, token);
        const from = Date.parse(`${period_start}T00:00:00Z`);
        const to = Date.parse(`${period_end}T00:00:00Z`) + 86_400_000 - 1;
        expect(counts).toEqual(oracleUsage(token, from, to));
      }
      const all = await json('/api/usage', token);
      expect(all.total_iq_searches_count).toBeGreaterThan(5);
      expect(all.usage_by_user.length).toBeGreaterThan(1);
    }
  });

  it('search lists equal a scan of all records, per status', async () => {
    const store = s.app.sandbox.store;
    const now = s.clock.now();
    for (const token of tokens) {
      for (const show of ['all', 'finished', 'started', 'pending']) {
        const keep = (r: SearchRecord) => show === 'all' || stageOf(r, now).status === show;
        const kw = await json(`/api/iq/keyword_search?show=${show}`, token);
        expect(kw.keyword_searches.map((x: { id: number }) => x.id)).toEqual(
          oracleList(store.keywordSearches.values(), token, keep),
        );
        expect(kw.total).toBe(kw.keyword_searches.length);
        const us = await json(`/api/iq/user_search?show=${show}`, token);
        expect(us.user_searches.map((x: { id: number }) => x.id)).toEqual(
          oracleList(store.userSearches.values(), token, keep),
        );
      }
      const ex = await json('/api/search', token);
      expect(ex.searches.map((x: { id: number }) => x.id)).toEqual(
        oracleList(store.expertSearches.values(), token, () => true),
      );
    }
  });

  it('run and schedule lists equal a scan of all records, with their filters', async () => {
    const store = s.app.sandbox.store;
    // Discard one completed run so the filter has something to drop.
    const first = store
      .ownedBy(tokens[0] as string)
      .runs.find((r) => r.origin === 'api' && r.status === 'completed');
    if (first === undefined) throw new Error('no completed run');
    await s.req('DELETE', `/agent/api/v1/runs/${first.id}`, { token: tokens[0], userId: 'x' });
    for (const token of tokens) {
      for (const query of [
        '',
        '?user_id=u1',
        '?status=completed',
        '?status=running&user_id=u2',
        '?limit=3&offset=2',
      ]) {
        const params = new URLSearchParams(query);
        const expected = [...store.runs.values()]
          .filter(
            (r) =>
              r.token === token &&
              r.origin !== 'outside' &&
              !r.discarded &&
              (!params.has('status') || r.status === params.get('status')) &&
              (!params.has('user_id') || r.userId === params.get('user_id')),
          )
          .sort((a, b) => b.createdAt - a.createdAt || a.id.localeCompare(b.id));
        const offset = Number(params.get('offset') ?? 0);
        const body = await json(`/agent/api/v1/runs${query}`, token);
        expect(body.total).toBe(expected.length);
        expect(body.runs.map((r: { id: string }) => r.id)).toEqual(
          expected.slice(offset, offset + Number(params.get('limit') ?? 50)).map((r) => r.id),
        );
      }
      const schedules = await json('/agent/api/v1/schedules', token);
      const expected = [...store.schedules.values()]
        .filter((x) => x.token === token)
        .sort((a, b) => b.createdAt - a.createdAt || a.id.localeCompare(b.id));
      expect(schedules.schedules.map((x: { id: string }) => x.id)).toEqual(expected.map((x) => x.id));
      expect(schedules.total).toBe(2);
    }
  });
});
