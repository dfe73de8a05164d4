import type { SearchDetails } from '../../upstream/schemas.js';
import { percentOf } from '../results/format.js';
import { POSTS_LIMIT_DEFAULT, type ResultOutput } from '../results/result-output.js';
import { nextCall } from './long-work.js';
import { searchEnded } from './search-common.js';
import type { ToolContext } from './types.js';

/**
 * A search's posts or topic trees read before it finished: upstream answers an empty list, which
 * would read as "no posts, last page". When a read comes back empty, the search is read once more and,
 * if it still runs, the answer says so, with its status, how far it is and the call that waits for it.
 */

const LABEL = { keyword: 'Keyword search', user: 'User search' } as const;
const GET_TOOL = { keyword: 'get_keyword_search', user: 'get_user_search' } as const;

/** The search's record when it has not finished yet; null when it has (an empty list is then true). */
export async function unfinishedSearch(
  ctx: ToolContext,
  kind: 'keyword' | 'user',
  id: number,
): Promise<SearchDetails | null> {
  const read = kind === 'keyword' ? ctx.upstream.getKeywordSearch : ctx.upstream.getUserSearch;
  const record = await read.call(ctx.upstream, ctx.creds, id, { signal: ctx.signal });
  return searchEnded(record) ? null : record;
}

/** The answer for `what` (its posts, its topic trees) of a search still running. */
export function stillRunning(
  ctx: ToolContext,
  kind: 'keyword' | 'user',
  record: SearchDetails,
  what: string,
  data: Record<string, unknown>,
): ResultOutput {
  const status = record.status ?? 'pending';
  const percent = percentOf(record.status_percentage);
  const text = `${LABEL[kind]} ${record.id} is still running (status ${status}, ${percent}% done): ${what} come when it finishes. ${nextCall(GET_TOOL[kind], 'search_id', record.id, ctx.options.searchMaxWaitMs)}`;
  return {
    data: { ...data, completed: false, status, status_percentage: percent },
    text,
  };
}

/** A posts page with nothing on it yet, in the posts tools' output shape. */
export function emptyPage(
  args: { search_id: number; offset?: number; limit?: number; detail?: string },
  platform: string,
): Record<string, unknown> {
  return {
    search_id: args.search_id,
    platform,
    detail: args.detail ?? 'summary',
    total: 0,
    offset: args.offset ?? 0,
    limit: args.limit ?? POSTS_LIMIT_DEFAULT,
    returned: 0,
    posts: [],
  };
}
