import { SEARCH_CREDIT_COST, SEARCH_PAGE_SIZE, type SearchStatus } from '../constants.js';
import { hasResults } from './datasets.js';
import type { Store } from './store.js';
import type { Credential, ExpertRecord, SearchPlan, SearchRecord } from './types.js';

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
    synthPosts: cred.synthPosts,
    createdAt: store.now(),
    plan: plan(store, cred.token, linkedin ? store.profileFor(cred.token).linkedinFactor : 1),
    webhookSent: false,
  };
  cred.credits -= SEARCH_CREDIT_COST;
  store.addSearch(rec);
  store.pendingWebhooks.set(rec, webhookDueAt(rec));
  return rec;
}

export function createUserSearch(
  store: Store,
  cred: Credential,
  userId: string,
  input: UserCreate,
): SearchRecord {
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
    synthPosts: cred.synthPosts,
    createdAt: store.now(),
    plan: plan(store, cred.token, 1),
    webhookSent: false,
  };
  cred.credits -= SEARCH_CREDIT_COST;
  store.addSearch(rec);
  store.pendingWebhooks.set(rec, webhookDueAt(rec));
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
  store.addExpertSearch(rec);
  store.pendingWebhooks.set(rec, webhookDueAt(rec));
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

export function listPage<T extends { createdAt: number; id: number }>(
  records: readonly T[],
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

/**
 * When a search leaves the pending-webhook set: when it finished and its results, if it has any, are
 * written (a results lag delays it), or when it failed. A search's stage is a pure function of its
 * plan, so this instant is fixed at creation and settling compares one number per pending search.
 */
export function webhookDueAt(rec: SearchRecord | ExpertRecord): number {
  const endAt = rec.createdAt + rec.plan.pendingMs + rec.plan.startedMs;
  const waitsForResults = !rec.plan.fail && 'kind' in rec && hasResults(rec);
  return waitsForResults ? endAt + rec.plan.resultsLagMs : endAt;
}
