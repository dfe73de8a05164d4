import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DATASET_CACHE_SIZE } from '../../src/sandbox/constants.js';
import { cachedDatasets, datasetOf, hasResults } from '../../src/sandbox/state/datasets.js';
import { postsData, searchDetails, topicTrees } from '../../src/sandbox/state/search-views.js';
import type { SearchRecord } from '../../src/sandbox/state/types.js';
import { type KeywordDataset, keywordDataset } from '../../src/sandbox/synthetic/keyword.js';
import { type UserDataset, userDataset } from '../../src/sandbox/synthetic/user.js';
import { type InProc, inProcSandbox } from '../helpers/sandbox-inproc.js';

/**
 * Search records keep only their inputs; datasets are derived when read. These tests build each dataset
 * eagerly from the request and require the derived one, and every response built
 * from it, to be byte-for-byte the same, whether it comes from the cache or is rebuilt after eviction.
 */

const T0 = Date.parse('2026-06-01T12:00:00Z');
const DAY = 86_400_000;
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const windowOf = (start: string, end: string) => ({
  startMs: Date.parse(`${start}T00:00:00Z`),
  endMs: Date.parse(`${end}T00:00:00Z`) + DAY - 1,
});

interface KeywordCase {
  query: string;
  platforms?: string[];
  start_date?: string;
  end_date?: string;
  max_post?: number;
}
interface UserCase {
  query: string;
  platform: 'twitter' | 'facebook' | 'instagram';
  start_date?: string;
  end_date?: string;
  max_post?: number;
}

const KEYWORD_CASES: KeywordCase[] = [
  { query: 'solar panels' },
  { query: '  padded query  ', platforms: ['reddit', 'twitter', 'reddit'], max_post: 4 },
  {
    query: '"heat pump" AND (grants OR rebates)',
    platforms: ['twitter', 'reddit', 'bluesky', 'youtube', 'threads', 'facebook', 'weibo'],
    start_date: '2026-05-01',
    end_date: '2026-05-20',
    max_post: 10_000,
  },
  { query: 'one day', platforms: ['youtube'], start_date: '2026-04-01', end_date: '2026-04-01', max_post: 1 },
  { query: 'hiring freeze', platforms: ['linkedin'] },
];
const USER_CASES: UserCase[] = [
  { query: '@amber_heron12', platform: 'twitter' },
  {
    query: 'tidal_quill88',
    platform: 'twitter',
    start_date: '2025-01-01',
    end_date: '2026-03-31',
    max_post: 7,
  },
  { query: '@page', platform: 'facebook', max_post: 3 },
  { query: 'opal', platform: 'instagram', start_date: '2026-02-01', end_date: '2026-02-28' },
];

/** The dataset exactly as creation built it before: from the request, defaults applied at T0. */
function eagerKeyword(c: KeywordCase): KeywordDataset {
  return keywordDataset({
    query: c.query.trim(),
    platforms: [...new Set(c.platforms ?? ['twitter', 'reddit', 'bluesky', 'youtube'])],
    window: windowOf(c.start_date ?? day(T0 - 7 * DAY), c.end_date ?? day(T0)),
    maxPost: c.max_post ?? 100,
  });
}
function eagerUser(c: UserCase): UserDataset {
  return userDataset({
    username: c.query.trim().replace(/^@/, ''),
    platform: c.platform,
    window: windowOf(c.start_date ?? '2026-05-01', c.end_date ?? day(T0)),
    maxPost: c.max_post ?? 100,
  });
}

let s: InProc;
let token: string;
beforeEach(() => {
  s = inProcSandbox(T0);
  token = s.app.sandbox.store.createCredential({ credits: 1_000 }).token;
});
afterEach(() => s.dispose());

async function create(kind: 'keyword' | 'user', body: object): Promise<SearchRecord> {
  const res = await s.req('POST', `/api/iq/${kind}_search`, { token, userId: 'u', body });
  expect(res.status).toBe(201);
  const { id } = JSON.parse(res.text) as { id: number };
  const store = s.app.sandbox.store;
  const rec = (kind === 'keyword' ? store.keywordSearches : store.userSearches).get(id);
  if (rec === undefined) throw new Error(`no record ${id}`);
  return rec;
}

const get = async (path: string) => (await s.req('GET', path, { token, userId: 'u' })).text;

/** Fills the dataset cache with other searches' data so the next read of `rec` rebuilds it. */
async function evict() {
  for (let i = 0; i < DATASET_CACHE_SIZE + 1; i++) {
    datasetOf({
      kind: 'keyword',
      query: `filler ${i}`,
      platforms: ['reddit'],
      startDate: '2026-01-01',
      endDate: '2026-01-02',
      maxPost: 2,
      synthPosts: null,
    });
  }
}

describe('derived datasets', () => {
  it('keyword searches: dataset and every response equal the eager construction, cached or rebuilt', async () => {
    for (const c of KEYWORD_CASES) {
      const rec = await create('keyword', c);
      const eager = eagerKeyword(c);
      const bytes = JSON.stringify(eager);
      expect(JSON.stringify(datasetOf(rec))).toBe(bytes);
      expect(hasResults(rec)).toBe(eager.results !== null);
      const base = `/api/iq/keyword_search/${rec.id}`;
      // pending, two points while started (preview filling), finished.
      for (const at of [0, 2_500, 5_000, 60_000]) {
        s.clock.set(T0 + at);
        const now = T0 + at;
        expect(await get(base)).toBe(JSON.stringify(searchDetails(rec, now, eager)));
        expect(await get(`${base}/posts_data`)).toBe(
          JSON.stringify({ posts: postsData(rec, now, 'all', eager) }),
        );
        expect(await get(`${base}/posts_data?platform=reddit`)).toBe(
          JSON.stringify({ posts: postsData(rec, now, 'reddit', eager) }),
        );
        expect(await get(`${base}/topic_tree`)).toBe(JSON.stringify(topicTrees(rec, now, undefined, eager)));
        await evict();
        expect(await get(base)).toBe(JSON.stringify(searchDetails(rec, now, eager)));
      }
      expect(JSON.stringify(datasetOf(rec))).toBe(bytes);
      s.clock.set(T0);
    }
  });

  it('user searches: dataset and every response equal the eager construction, cached or rebuilt', async () => {
    for (const c of USER_CASES) {
      const rec = await create('user', c);
      const eager = eagerUser(c);
      const bytes = JSON.stringify(eager);
      expect(JSON.stringify(datasetOf(rec))).toBe(bytes);
      expect(hasResults(rec)).toBe(eager.results !== null);
      const base = `/api/iq/user_search/${rec.id}`;
      for (const at of [0, 1_500, 3_900, 60_000]) {
        s.clock.set(T0 + at);
        const now = T0 + at;
        expect(await get(base)).toBe(JSON.stringify(searchDetails(rec, now, eager)));
        expect(await get(`${base}/posts_data`)).toBe(
          JSON.stringify({ posts: postsData(rec, now, 'all', eager) }),
        );
        await evict();
        expect(await get(`${base}/posts_data`)).toBe(
          JSON.stringify({ posts: postsData(rec, now, 'all', eager) }),
        );
      }
      expect(JSON.stringify(datasetOf(rec))).toBe(bytes);
      s.clock.set(T0);
    }
  });

  it('a record holds its inputs and plan only, a few hundred bytes', async () => {
    const rec = await create('keyword', KEYWORD_CASES[2] as KeywordCase);
    expect(Object.keys(rec)).not.toContain('dataset');
    expect(JSON.stringify(rec).length).toBeLessThan(600);
    expect(JSON.stringify(datasetOf(rec)).length).toBeGreaterThan(10_000);
  });

  it('repeated reads of one search reuse the cached dataset; the cache stays bounded', async () => {
    const rec = await create('keyword', { query: 'polled' });
    expect(datasetOf(rec)).toBe(datasetOf(rec));
    await evict();
    expect(cachedDatasets()).toBe(DATASET_CACHE_SIZE);
    const rebuilt = datasetOf(rec);
    expect(datasetOf(rec)).toBe(rebuilt);
  });
});
