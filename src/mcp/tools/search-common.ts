import type { SearchDetails } from '../../upstream/schemas.js';
import { percentOf } from '../results/format.js';
import { fromPostsData, type PostSummary } from '../results/posts.js';
import { type PreviewShown, previewOf } from '../results/preview.js';
import { type Detail, TOP_POSTS_DEFAULT } from '../results/result-output.js';
import { searchOutput } from '../results/searches.js';
import { type WaitOutcome, waitFor, whyUnfinished } from '../waiting/wait.js';
import { twitterFollowers } from './followers.js';
import { announce, answerBy, nextCall, outputOf, seenState, waitBudget } from './long-work.js';
import type { ProgressUpdate, Settled, StartedJob, ToolContext, ToolOutput } from './types.js';

/** What keyword and user search tools share: settling a search, and shaping it for the model. */

const GET_TOOL = { keyword: 'get_keyword_search', user: 'get_user_search' } as const;

export interface SearchState {
  record: SearchDetails;
  completed: boolean;
  nextStep?: string;
}

/**
 * Settles a keyword or user search (./long-work.ts): waits up to `waitMs` for it, then its result as
 * the tool returns it. After `finished` it keeps waiting a little while its results are not written yet
 * (`resultsExpected`). The result is made in a continuation of the wait, not after an `await`: no frame
 * of this function stays suspended while the search runs (heap per waiting call).
 */
export function settleSearch(
  ctx: ToolContext,
  kind: 'keyword' | 'user',
  job: StartedJob,
  opts: { resultsExpected: boolean; detail: Detail | undefined; waitMs: number },
): Promise<Settled> {
  const id = Number(job.id);
  const jobKind = JOB_KIND[kind];
  return waitFor(ctx, {
    key: `${jobKind}:${id}`,
    initial: (job.initial as SearchDetails | undefined) ?? ({ id, status: 'pending' } as SearchDetails),
    poll: (signal, deadline) =>
      kind === 'keyword'
        ? ctx.upstream.getKeywordSearch(ctx.creds, id, { signal, deadline })
        : ctx.upstream.getUserSearch(ctx.creds, id, { signal, deadline }),
    isDone: searchDone(ctx.options.resultsGraceMs, opts.resultsExpected),
    keep: searchStatus,
    progress: searchProgress,
    ...waitBudget(ctx, opts.waitMs),
    announce: announce(jobKind, id, opts.waitMs, job.fresh === true),
  }).then((outcome) => {
    const failed = outcome.kind === 'done' && outcome.record.status === 'failed';
    if (outcome.kind === 'done' || outcome.kind === 'timeout')
      void ctx.reuse?.seen(jobKind, id, seenState(outcome, failed));
    return searchResult(ctx, kind, searchState(outcome, id, kind, opts.waitMs), { detail: opts.detail }).then(
      (output) => ({ output, ended: outcome.kind, failed }),
    );
  });
}

const JOB_KIND = { keyword: 'keyword_search', user: 'user_search' } as const;

/**
 * When waiting for a search is over: failed, or finished with its results (or none expected, or the
 * grace for them spent, counted from the first read that said finished).
 */
function searchDone(graceMs: number, resultsExpected: boolean) {
  let finishedAt: number | null = null;
  return (record: SearchDetails, now: number): boolean => {
    if (record.status === 'failed') return true;
    if (record.status !== 'finished') return false;
    if (record.results != null || !resultsExpected) return true;
    finishedAt ??= now;
    return now - finishedAt >= graceMs;
  };
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
function searchState(
  outcome: WaitOutcome<SearchDetails>,
  id: number,
  kind: 'keyword' | 'user',
  waitMs: number,
): SearchState {
  if (outcome.kind === 'done') return { record: outcome.record, completed: true };
  const why = whyUnfinished(outcome, 'search');
  return {
    record: outcome.record,
    completed: false,
    nextStep: `${why} ${nextCall(GET_TOOL[kind], 'search_id', id, waitMs)}`,
  };
}

/** A search read without waiting: done when finished or failed. */
export function readState(kind: 'keyword' | 'user', record: SearchDetails, waitMs: number): SearchState {
  return searchEnded(record)
    ? { record, completed: true }
    : { record, completed: false, nextStep: nextCall(GET_TOOL[kind], 'search_id', record.id, waitMs) };
}

export const searchEnded = (record: SearchDetails) =>
  record.status === 'finished' || record.status === 'failed';

/**
 * A get tool's answer: the search as read, or with `wait`, settled from that read up to the submit's
 * limit (finished counts as done: the results grace is the submit's, which knows whether any come).
 */
export function getSearch(
  ctx: ToolContext,
  kind: 'keyword' | 'user',
  record: SearchDetails,
  args: { wait?: boolean | undefined; detail?: Detail | undefined },
): Promise<ToolOutput> {
  const waitMs = ctx.options.searchMaxWaitMs;
  if (!args.wait || searchEnded(record))
    return searchResult(ctx, kind, readState(kind, record, waitMs), args);
  return settleSearch(
    ctx,
    kind,
    { id: record.id, initial: record },
    { resultsExpected: false, detail: args.detail, waitMs },
  ).then(outputOf);
}

function hasTwitterPosts(record: SearchDetails): boolean {
  const results = record.results;
  if (results === null || typeof results !== 'object') return false;
  const posts = (results as { posts?: { twitter?: unknown } }).posts;
  return Array.isArray(posts?.twitter) && posts.twitter.length > 0;
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
  // The extra reads fit in the call's limit; past it the answer goes without them.
  const deadline = answerBy(ctx, ctx.options.searchMaxWaitMs);
  if (needsPosts) {
    try {
      const o = { signal: ctx.signal, deadline };
      const body =
        kind === 'user'
          ? await ctx.upstream.getUserSearchPosts(ctx.creds, record.id, o)
          : await ctx.upstream.getKeywordSearchPosts(ctx.creds, record.id, undefined, o);
      posts = body.posts.map(fromPostsData);
    } catch {
      postsError = `reading them failed; call ${kind === 'user' ? 'get_user_search_posts_data' : 'get_keyword_search_posts_data'} later.`;
    }
  }
  // A keyword search's top voices name followers where its twitter posts_data has them.
  const followers =
    detail === 'summary' && state.completed && kind === 'keyword' && hasTwitterPosts(record)
      ? await twitterFollowers(ctx, record.id, deadline)
      : null;
  const preview = detail === 'summary' ? previewFor(ctx, kind, state) : undefined;
  return searchOutput({
    kind,
    ...state,
    detail,
    top: TOP_POSTS_DEFAULT,
    ...(posts ? { posts } : {}),
    ...(postsError ? { postsError } : {}),
    ...(followers ? { followers } : {}),
    ...(preview ? { preview } : {}),
  });
}

/**
 * The preview posts a summary of a running search shows: those this caller was not shown yet
 * (./preview-memory.ts), so a wait's answer does not resend the last one's. A search that ended is
 * forgotten: its answer shows its results, not its preview.
 */
function previewFor(
  ctx: ToolContext,
  kind: 'keyword' | 'user',
  state: SearchState,
): PreviewShown | undefined {
  const memory = ctx.previews;
  if (!memory) return undefined;
  const search = `${kind}:${state.record.id}`;
  if (state.completed) {
    memory.forget(search);
    return undefined;
  }
  const all = previewOf(kind, state.record);
  const { fresh, earlier } = memory.take(
    search,
    all.map((p) => p.key),
  );
  return { posts: all.filter((_, i) => fresh[i]).map((p) => p.post), earlier };
}
