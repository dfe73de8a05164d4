import type { SearchDetails } from '../../upstream/schemas.js';
import { percentOf } from '../results/format.js';
import { type Detail, TOP_POSTS_DEFAULT } from '../results/output.js';
import { fromPostsData, type PostSummary } from '../results/posts.js';
import { searchOutput } from '../results/searches.js';
import { type WaitOutcome, waitFor, whyUnfinished } from '../waiting/wait.js';
import type { ProgressUpdate, ToolContext, ToolOutput } from './types.js';

/** What keyword and user search tools share: waiting for a search, and shaping it for the model. */

const GET_TOOL = { keyword: 'get_keyword_search', user: 'get_user_search' } as const;

export interface SearchState {
  record: SearchDetails;
  completed: boolean;
  nextStep?: string;
}

/**
 * Waits for a search; keeps waiting a little after `finished` when its results are not written yet.
 * The state is made in a continuation of the wait, not after an `await`: no frame of this function
 * stays suspended while the search runs (issue 18: heap per waiting call).
 */
export function waitForSearch(
  ctx: ToolContext,
  id: number,
  noResultsExpected: boolean,
  kind: 'keyword' | 'user',
  poll: (signal: AbortSignal) => Promise<SearchDetails>,
): Promise<SearchState> {
  let finishedAt: number | null = null;
  return waitFor(ctx, {
    key: `${kind}_search:${id}`,
    initial: { id, status: 'pending', status_text: 'Search submitted' } as SearchDetails,
    poll,
    isDone(record, now) {
      if (record.status === 'failed') return true;
      if (record.status !== 'finished') return false;
      if (record.results != null || noResultsExpected) return true;
      finishedAt ??= now;
      return now - finishedAt >= ctx.options.resultsGraceMs;
    },
    keep: searchStatus,
    progress: searchProgress,
    maxWaitMs: ctx.options.searchMaxWaitMs,
  }).then((outcome) => searchState(outcome, id, kind));
}

/**
 * What the scheduler keeps of a search between polls: only what says where it stands. Its preview
 * posts (a few KB per waiting call) are shown again from the next read, and a wait that ends without
 * one (cancelled, upstream unreadable, shutdown) points the model to get_*_search instead.
 */
function searchStatus({
  tweet_preview: _preview,
  results: _results,
  ...status
}: SearchDetails): SearchDetails {
  return status;
}

/** A search's progress report. Module functions, like searchStatus: no closures per waiting call. */
function searchProgress(record: SearchDetails): ProgressUpdate {
  return {
    percentage: percentOf(record.status_percentage),
    phase: record.status ?? 'pending',
    message: record.status_text ?? '',
  };
}

/** Where a wait for a search left it, with the tool to call later when it has not ended. */
function searchState(outcome: WaitOutcome<SearchDetails>, id: number, kind: 'keyword' | 'user'): SearchState {
  if (outcome.kind === 'done') return { record: outcome.record, completed: true };
  const why = whyUnfinished(outcome, 'search');
  return {
    record: outcome.record,
    completed: false,
    nextStep: `${why} Call ${GET_TOOL[kind]} with search_id ${id} later for the result.`,
  };
}

/** A search read without waiting: done when finished or failed. */
export function readState(kind: 'keyword' | 'user', record: SearchDetails): SearchState {
  const done = record.status === 'finished' || record.status === 'failed';
  return done
    ? { record, completed: true }
    : { record, completed: false, nextStep: `Call ${GET_TOOL[kind]} again in a little while.` };
}

/**
 * The result of a search tool. A summary shows the top posts: a keyword search's come with its
 * analysis; a user search's (and a LinkedIn search's, which has no analysis) are read from posts_data,
 * one more upstream read that spends no credit.
 */
export async function searchResult(
  ctx: ToolContext,
  kind: 'keyword' | 'user',
  state: SearchState,
  args: { detail?: Detail | undefined },
): Promise<ToolOutput> {
  const detail = args.detail ?? 'summary';
  const { record } = state;
  let posts: PostSummary[] | undefined;
  let postsError: string | undefined;
  const needsPosts =
    detail === 'summary' &&
    state.completed &&
    record.status === 'finished' &&
    (kind === 'user' || record.results == null);
  if (needsPosts) {
    try {
      const body =
        kind === 'user'
          ? await ctx.upstream.getUserSearchPosts(ctx.creds, record.id, { signal: ctx.signal })
          : await ctx.upstream.getKeywordSearchPosts(ctx.creds, record.id, undefined, { signal: ctx.signal });
      posts = body.posts.map(fromPostsData);
    } catch {
      postsError = `reading them failed; call ${kind === 'user' ? 'get_user_search_posts_data' : 'get_keyword_search_posts_data'} later.`;
    }
  }
  return searchOutput({
    kind,
    ...state,
    detail,
    top: TOP_POSTS_DEFAULT,
    ...(posts ? { posts } : {}),
    ...(postsError ? { postsError } : {}),
  });
}
