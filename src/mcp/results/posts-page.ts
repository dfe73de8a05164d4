import { postKindOf } from '../../upstream/platforms.js';
import { fenced } from './fence.js';
import { isRecord, num } from './format.js';
import { link, postsUri } from './links.js';
import { pageWithin } from './paging.js';
import { fromPostsData, type PostSummary, postLine } from './posts.js';
import type { Detail, ResultOutput as ToolOutput } from './result-output.js';
import { estimateTokens } from './tokens.js';

export interface PostsPageView {
  kind: 'keyword' | 'user';
  searchId: number;
  platform: string;
  /** The search's posts as posts_data returned them: every post, or those of the upstream filter asked. */
  posts: readonly unknown[];
  offset: number;
  limit: number;
  detail: Detail;
  maxTokens: number;
}

const LABEL = { keyword: 'Keyword search', user: 'User search' } as const;
const TOOL = { keyword: 'get_keyword_search_posts_data', user: 'get_user_search_posts_data' } as const;

/**
 * One page of a search's posts (every post stays reachable): `limit` posts or as many as fit the
 * token budget, `next_offset` whenever any are left. Summary: one line per post inside the fence, and
 * compact posts in `structuredContent`; full: the posts as upstream sent them, as JSON.
 */
export function postsPageOutput(view: PostsPageView): ToolOutput {
  // The kind asked for, as summaries count it (a YouTube comment is a youtube_comment, whatever
  // upstream's filter let through): the page total is the summary's count for that platform.
  const mine =
    view.platform === 'all'
      ? view.posts
      : view.posts.filter((p) => postKindOf(isRecord(p) ? p : {}) === view.platform);
  const items: unknown[] = view.detail === 'full' ? [...mine] : mine.map(fromPostsData);
  // A summary post costs its line in the text and its JSON in structuredContent: the larger counts.
  const measure =
    view.detail === 'full'
      ? undefined
      : (p: unknown) =>
          Math.max(estimateTokens(JSON.stringify(p)), estimateTokens(postLine(p as PostSummary, 99_999)));
  const page = pageWithin(items, view.offset, view.limit, view.maxTokens, measure);
  const { items: posts, cutBySize, ...counts } = page;
  const data = {
    search_id: view.searchId,
    platform: view.platform,
    detail: view.detail,
    ...counts,
    posts,
  };
  // A user search is one account on one platform: its posts' platform, never "all platforms".
  const kinds = [...new Set(mine.map((p) => postKindOf(isRecord(p) ? p : {})))];
  const scope =
    view.platform !== 'all' ? view.platform : view.kind === 'user' ? kinds.join(', ') : 'all platforms';
  const range =
    page.returned === 0
      ? `no posts at offset ${num(view.offset)} of ${num(page.total)}`
      : `posts ${num(view.offset + 1)}–${num(view.offset + page.returned)} of ${num(page.total)}`;
  const head = `${LABEL[view.kind]} ${view.searchId}${scope ? ` (${scope})` : ''}: ${range}.`;
  const next =
    page.next_offset === undefined
      ? 'Last page.'
      : `Next page: ${TOOL[view.kind]} with offset ${page.next_offset}${cutBySize ? ' (this page was cut to fit the token budget)' : ''}.`;
  const links =
    page.next_offset === undefined
      ? []
      : [
          link(
            postsUri(view.kind, view.searchId, {
              platform: view.platform,
              offset: page.next_offset,
              limit: view.limit,
            }),
            `${view.kind} search ${view.searchId} posts from ${page.next_offset}`,
            'text/markdown',
          ),
        ];
  if (view.detail === 'full') return { data, text: `${head} ${next}`, json: true, untrusted: true, links };
  const lines = [head, fenced(posts.map((p, i) => postLine(p as PostSummary, view.offset + i + 1))), next];
  return { data, text: lines.filter(Boolean).join('\n'), untrusted: true, links };
}
