import { iso } from '../clock.js';
import { SEARCH_CREDIT_COST, SEARCH_PAGE_SIZE, type SearchStatus } from '../constants.js';
import { expertResults } from '../synthetic/expert.js';
import { type KeywordDataset, keywordDataset } from '../synthetic/keyword.js';
import type { JsonObject } from '../synthetic/shapes.js';
import { userDataset } from '../synthetic/user.js';
import type { Store } from './store.js';
import type { Credential, ExpertRecord, SearchPlan, SearchRecord } from './types.js';

const DAY_MS = 86_400_000;

export interface KeywordCreate {
  query: string;
  startDate: string;
  endDate: string;
  platforms: string[];
  maxPost: number;
}

export interface UserCreate {
  query: string;
  platform: 'twitter' | 'facebook' | 'instagram';
  startDate: string;
  endDate: string;
  maxPost: number;
}

function windowOf(startDate: string, endDate: string): { startMs: number; endMs: number } {
  return {
    startMs: Date.parse(`${startDate}T00:00:00Z`),
    endMs: Date.parse(`${endDate}T00:00:00Z`) + DAY_MS - 1,
  };
}

function plan(store: Store, token: string, factor: number): SearchPlan {
  const profile = store.profileFor(token);
  const faults = store.faults.effective(token);
  return {
    pendingMs: profile.searchPendingMs * factor,
    startedMs: profile.searchStartedMs * factor,
    resultsLagMs: faults.results_lag_ms ?? 0,
    fail: faults.fail_searches === true,
  };
}

export function createKeywordSearch(
  store: Store,
  cred: Credential,
  userId: string,
  input: KeywordCreate,
): SearchRecord {
  const linkedin = input.platforms.includes('linkedin');
  const rec: SearchRecord = {
    kind: 'keyword',
    id: store.searchId(),
    token: cred.token,
    userId,
    query: input.query,
    platforms: input.platforms,
    startDate: input.startDate,
    endDate: input.endDate,
    maxPost: input.maxPost,
    createdAt: store.now(),
    plan: plan(store, cred.token, linkedin ? store.profileFor(cred.token).linkedinFactor : 1),
    dataset: keywordDataset({
      query: input.query,
      platforms: input.platforms,
      window: windowOf(input.startDate, input.endDate),
      maxPost: input.maxPost,
    }),
    webhookSent: false,
  };
  cred.credits -= SEARCH_CREDIT_COST;
  store.keywordSearches.set(rec.id, rec);
  store.pendingWebhooks.add(rec);
  return rec;
}

export function createUserSearch(
  store: Store,
  cred: Credential,
  userId: string,
  input: UserCreate,
): SearchRecord {
  const username = input.query.replace(/^@/, '');
  const rec: SearchRecord = {
    kind: 'user',
    id: store.searchId(),
    token: cred.token,
    userId,
    query: input.query,
    platforms: [input.platform],
    startDate: input.startDate,
    endDate: input.endDate,
    maxPost: input.maxPost,
    createdAt: store.now(),
    plan: plan(store, cred.token, 1),
    dataset: userDataset({
      username,
      platform: input.platform,
      window: windowOf(input.startDate, input.endDate),
      maxPost: input.maxPost,
    }),
    webhookSent: false,
  };
  cred.credits -= SEARCH_CREDIT_COST;
  store.userSearches.set(rec.id, rec);
  store.pendingWebhooks.add(rec);
  return rec;
}

export function createExpertSearch(
  store: Store,
  cred: Credential,
  userId: string,
  query: string,
): ExpertRecord {
  const profile = store.profileFor(cred.token);
  const base = plan(store, cred.token, 1);
  const rec: ExpertRecord = {
    id: store.expertId(),
    token: cred.token,
    userId,
    query,
    createdAt: store.now(),
    plan: { ...base, pendingMs: 0, startedMs: profile.expertRunningMs },
    webhookSent: false,
  };
  cred.credits -= SEARCH_CREDIT_COST;
  store.expertSearches.set(rec.id, rec);
  store.pendingWebhooks.add(rec);
  return rec;
}

export interface Stage {
  status: SearchStatus;
  /** 0..1 within `started`. */
  fraction: number;
  updatedAt: number;
  /** When status became terminal, else null. */
  endedAt: number | null;
  resultsReady: boolean;
}

/** Search progress is a pure function of the clock: no timers needed. */
export function stageOf(rec: { createdAt: number; plan: SearchPlan }, now: number): Stage {
  const { pendingMs, startedMs, resultsLagMs, fail } = rec.plan;
  const startAt = rec.createdAt + pendingMs;
  const endAt = startAt + startedMs;
  if (now < startAt)
    return { status: 'pending', fraction: 0, updatedAt: rec.createdAt, endedAt: null, resultsReady: false };
  if (now < endAt) {
    return {
      status: 'started',
      fraction: (now - startAt) / startedMs,
      updatedAt: startAt,
      endedAt: null,
      resultsReady: false,
    };
  }
  if (fail) return { status: 'failed', fraction: 1, updatedAt: endAt, endedAt: endAt, resultsReady: false };
  const ready = now >= endAt + resultsLagMs;
  return {
    status: 'finished',
    fraction: 1,
    updatedAt: ready ? endAt + resultsLagMs : endAt,
    endedAt: endAt,
    resultsReady: ready,
  };
}

function statusText(stage: Stage, platforms: string[]): string {
  switch (stage.status) {
    case 'pending':
      return 'Search queued';
    case 'started': {
      if (stage.fraction >= 0.8) return 'Analyzing posts';
      const index = Math.min(platforms.length - 1, Math.floor((stage.fraction / 0.8) * platforms.length));
      return `Collecting posts from ${platforms[index] ?? 'twitter'}`;
    }
    case 'finished':
      return 'Search completed';
    case 'failed':
      return 'Search failed: the collection backend returned an error';
  }
}

function percentage(stage: Stage): string {
  if (stage.status === 'pending') return '0';
  if (stage.status === 'started') return String(Math.min(99, Math.max(1, Math.floor(stage.fraction * 100))));
  if (stage.status === 'failed') return '0';
  return '100';
}

function previewFor(rec: SearchRecord, stage: Stage): JsonObject[] {
  const preview = rec.dataset.preview;
  if (stage.status === 'pending') return [];
  if (stage.status === 'started') return preview.slice(0, Math.ceil(preview.length * stage.fraction));
  return preview;
}

export function httpDate(ms: number): string {
  return new Date(ms).toUTCString();
}

/** GET /api/iq/{keyword,user}_search/{id} body. */
export function searchDetails(rec: SearchRecord, now: number): JsonObject {
  const stage = stageOf(rec, now);
  const results = rec.dataset.results;
  const out: JsonObject = {
    id: rec.id,
    query: rec.query,
    created_at: iso(rec.createdAt),
    updated_at: iso(stage.updatedAt),
    status: stage.status,
    status_text: statusText(stage, rec.platforms),
    status_percentage: percentage(stage),
    tweet_preview: previewFor(rec, stage),
    results:
      stage.resultsReady && results !== null && stage.endedAt !== null
        ? { ...results, created_at: httpDate(stage.endedAt + rec.plan.resultsLagMs) }
        : null,
  };
  if (rec.kind === 'user') out.platform = rec.platforms[0] ?? 'twitter';
  return out;
}

export function searchCreation(rec: { id: number; query: string; createdAt: number }): JsonObject {
  return { id: rec.id, query: rec.query, created_at: iso(rec.createdAt), updated_at: iso(rec.createdAt) };
}

export function postsData(rec: SearchRecord, now: number, platform: string): JsonObject[] {
  const stage = stageOf(rec, now);
  // Posts are written with the results, so they appear once the search finished (lag included).
  if (
    !(stage.status === 'finished' && stage.resultsReady) &&
    !(stage.status === 'finished' && rec.dataset.results === null)
  ) {
    return [];
  }
  const posts = rec.dataset.postsData;
  return platform === 'all' ? posts : posts.filter((p) => p.platform === platform);
}

export function topicTrees(rec: SearchRecord, now: number, platform: string | undefined): JsonObject {
  const stage = stageOf(rec, now);
  const dataset = rec.dataset as KeywordDataset;
  if (!stage.resultsReady || stage.endedAt === null || dataset.trees.length === 0) return { data: [] };
  const createdAt = httpDate(stage.endedAt + rec.plan.resultsLagMs);
  const trees = dataset.trees
    .filter((t) => platform === undefined || platform === 'all' || t.platform === platform)
    .map((t) => ({ ...t, created_at: createdAt }));
  const first = trees[0];
  // The top-level copy of the first tree is deprecated upstream but still sent.
  return first === undefined ? { data: [] } : { ...first, data: trees };
}

export function expertDetails(rec: ExpertRecord, now: number): JsonObject {
  const stage = stageOf(rec, now);
  const status = stage.status === 'finished' ? 'completed' : stage.status === 'failed' ? 'failed' : 'running';
  return {
    id: rec.id,
    query: rec.query,
    created_at: iso(rec.createdAt),
    updated_at: iso(stage.updatedAt),
    status,
    search_url: searchUrl(rec.id),
    expert_results: status === 'completed' ? expertResults(rec.query) : null,
  };
}

export function searchUrl(id: number): string {
  return `https://example.com/experts/search/${id}`;
}

export function expertStatus(rec: ExpertRecord, now: number): string {
  return expertDetails(rec, now).status as string;
}

export function listPage<T extends { createdAt: number; id: number }>(
  records: T[],
  page: number,
  statusOf: (r: T) => string,
  show: string,
): { items: T[]; total: number } {
  const filtered = records
    .filter((r) => show === 'all' || statusOf(r) === show)
    .sort((a, b) => b.createdAt - a.createdAt || b.id - a.id);
  return {
    items: filtered.slice((page - 1) * SEARCH_PAGE_SIZE, page * SEARCH_PAGE_SIZE),
    total: filtered.length,
  };
}

/** Whether a search reached the point where its webhook goes out. */
export function webhookDue(rec: SearchRecord | ExpertRecord, now: number): boolean {
  const stage = stageOf(rec, now);
  if (stage.status === 'failed') return false;
  if (stage.status !== 'finished') return false;
  if ('dataset' in rec && rec.dataset.results !== null) return stage.resultsReady;
  return true;
}
