import { DATASET_CACHE_SIZE } from '../constants.js';
import { type KeywordDataset, type KeywordInput, keywordDataset } from '../synthetic/keyword.js';
import type { PostWindow } from '../synthetic/posts.js';
import { type UserDataset, type UserInput, userDataset } from '../synthetic/user.js';
import { Lru } from './lru.js';
import type { SearchRecord } from './types.js';

/**
 * A search's synthetic data is a pure function of what was asked (query, platforms, date window,
 * max_post), all of which the record keeps, so it is derived when read instead of being held for the
 * record's lifetime (tens of KB each: kept forever, they would grow the sandbox's memory without bound). Polls of one search
 * read the same data repeatedly, so the last few datasets are cached; the cache is keyed by the inputs,
 * not the record, so identical searches share an entry.
 *
 * Datasets are shared between readers: nothing may mutate one (views copy what they change).
 */

const DAY_MS = 86_400_000;

// One cache per process, shared by every sandbox app in it: entries depend only on their key.
const cache = new Lru<string, KeywordDataset | UserDataset>(DATASET_CACHE_SIZE);

/** The UTC days from start_date 00:00 to the last millisecond of end_date. */
export function windowOf(startDate: string, endDate: string): PostWindow {
  return {
    startMs: Date.parse(`${startDate}T00:00:00Z`),
    endMs: Date.parse(`${endDate}T00:00:00Z`) + DAY_MS - 1,
  };
}

type SearchInputs = Pick<
  SearchRecord,
  'kind' | 'query' | 'platforms' | 'startDate' | 'endDate' | 'maxPost' | 'synthPosts'
>;

export function keywordInputOf(rec: SearchInputs): KeywordInput {
  return {
    query: rec.query,
    platforms: rec.platforms,
    window: windowOf(rec.startDate, rec.endDate),
    maxPost: rec.maxPost,
    synthPosts: rec.synthPosts,
  };
}

export function userInputOf(rec: SearchInputs): UserInput {
  return {
    username: rec.query.replace(/^@/, ''),
    platform: (rec.platforms[0] ?? 'twitter') as UserInput['platform'],
    window: windowOf(rec.startDate, rec.endDate),
    maxPost: rec.maxPost,
    synthPosts: rec.synthPosts,
  };
}

/** The dataset built from the record's inputs, from the cache when it was built recently. */
export function datasetOf(rec: SearchInputs): KeywordDataset | UserDataset {
  const key = JSON.stringify([
    rec.kind,
    rec.query,
    rec.platforms,
    rec.startDate,
    rec.endDate,
    rec.maxPost,
    rec.synthPosts,
  ]);
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  const built = rec.kind === 'keyword' ? keywordDataset(keywordInputOf(rec)) : userDataset(userInputOf(rec));
  cache.set(key, built);
  return built;
}

/**
 * Whether the dataset has `results` (LinkedIn keyword searches and facebook/instagram user searches
 * have none), known without building it: webhook timing depends on it for every search, including
 * the many whose dataset is never read.
 */
export function hasResults(rec: Pick<SearchRecord, 'kind' | 'platforms'>): boolean {
  return rec.kind === 'keyword' ? !rec.platforms.includes('linkedin') : rec.platforms[0] === 'twitter';
}

/** Datasets currently cached (for tests of the bound). */
export function cachedDatasets(): number {
  return cache.size;
}
