import { iso } from '../clock.js';
import { expertResults } from '../synthetic/expert.js';
import type { KeywordDataset } from '../synthetic/keyword.js';
import type { JsonObject } from '../synthetic/shapes.js';
import type { UserDataset } from '../synthetic/user.js';
import { datasetOf, hasResults } from './datasets.js';
import { type Stage, stageOf } from './searches.js';
import type { ExpertRecord, SearchRecord } from './types.js';

/**
 * Response bodies of searches. Each is a function of the record, the time and the record's dataset;
 * the dataset parameter defaults to the derived one (tests pass an eagerly built one to prove they are
 * the same). A dataset is only built when the body shows some of it.
 */

type Dataset = KeywordDataset | UserDataset;

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

function previewFor(dataset: Dataset, stage: Stage): JsonObject[] {
  const preview = dataset.preview;
  if (stage.status === 'started') return preview.slice(0, Math.ceil(preview.length * stage.fraction));
  return preview;
}

export function httpDate(ms: number): string {
  return new Date(ms).toUTCString();
}

/** GET /api/iq/{keyword,user}_search/{id} body. */
export function searchDetails(rec: SearchRecord, now: number, dataset?: Dataset): JsonObject {
  const stage = stageOf(rec, now);
  // A pending search shows none of its data.
  const data = stage.status === 'pending' ? null : (dataset ?? datasetOf(rec));
  const results = data?.results ?? null;
  const out: JsonObject = {
    id: rec.id,
    query: rec.query,
    created_at: iso(rec.createdAt),
    updated_at: iso(stage.updatedAt),
    status: stage.status,
    status_text: statusText(stage, rec.platforms),
    status_percentage: percentage(stage),
    tweet_preview: data === null ? [] : previewFor(data, stage),
    results:
      stage.resultsReady && results !== null && stage.endedAt !== null
        ? { ...results, created_at: httpDate(stage.endedAt + rec.plan.resultsLagMs) }
        : null,
  };
  if (rec.kind === 'user') out.platform = rec.platforms[0] ?? 'twitter';
  return out;
}

/** A list item: the details' first fields, without building the dataset. */
export function searchSummary(rec: SearchRecord, now: number): JsonObject {
  const stage = stageOf(rec, now);
  return {
    id: rec.id,
    query: rec.query,
    created_at: iso(rec.createdAt),
    updated_at: iso(stage.updatedAt),
    status: stage.status,
  };
}

export function searchCreation(rec: { id: number; query: string; createdAt: number }): JsonObject {
  return { id: rec.id, query: rec.query, created_at: iso(rec.createdAt), updated_at: iso(rec.createdAt) };
}

export function postsData(rec: SearchRecord, now: number, platform: string, dataset?: Dataset): JsonObject[] {
  const stage = stageOf(rec, now);
  // Posts are written with the results, so they appear once the search finished (lag included).
  if (!(stage.status === 'finished' && (stage.resultsReady || !hasResults(rec)))) return [];
  const posts = (dataset ?? datasetOf(rec)).postsData;
  return platform === 'all' ? posts : posts.filter((p) => p.platform === platform);
}

export function topicTrees(
  rec: SearchRecord,
  now: number,
  platform: string | undefined,
  dataset?: KeywordDataset,
): JsonObject {
  const stage = stageOf(rec, now);
  if (!stage.resultsReady || stage.endedAt === null) return { data: [] };
  const { trees } = dataset ?? (datasetOf(rec) as KeywordDataset);
  if (trees.length === 0) return { data: [] };
  const createdAt = httpDate(stage.endedAt + rec.plan.resultsLagMs);
  const shown = trees
    .filter((t) => platform === undefined || platform === 'all' || t.platform === platform)
    .map((t) => ({ ...t, created_at: createdAt }));
  const first = shown[0];
  // The top-level copy of the first tree is deprecated upstream but still sent.
  return first === undefined ? { data: [] } : { ...first, data: shown };
}

export function expertStatus(rec: ExpertRecord, now: number): 'running' | 'completed' | 'failed' {
  const { status } = stageOf(rec, now);
  return status === 'finished' ? 'completed' : status === 'failed' ? 'failed' : 'running';
}

export function expertDetails(rec: ExpertRecord, now: number): JsonObject {
  const status = expertStatus(rec, now);
  return {
    ...expertSummary(rec, now),
    search_url: searchUrl(rec.id),
    expert_results: status === 'completed' ? expertResults(rec.query) : null,
  };
}

/** A list item: without the expert results, which lists do not show. */
export function expertSummary(rec: ExpertRecord, now: number): JsonObject {
  return {
    id: rec.id,
    query: rec.query,
    created_at: iso(rec.createdAt),
    updated_at: iso(stageOf(rec, now).updatedAt),
    status: expertStatus(rec, now),
  };
}

export function searchUrl(id: number): string {
  return `https://example.com/experts/search/${id}`;
}
