/**
 * The upstream's platform names, one list per purpose, as the API description gives them. The tools'
 * argument schemas and the results' summaries use these lists and nothing else; the sandbox keeps its
 * own copy (it is the other side of the wire, written from the same description), and a test holds the
 * two to each other.
 */

/** What a keyword search can search (`platforms` of POST /api/iq/keyword_search); linkedin only alone. */
export const KEYWORD_SEARCH_PLATFORMS = [
  'twitter',
  'reddit',
  'bluesky',
  'youtube',
  'threads',
  'facebook',
  'weibo',
  'linkedin',
] as const;

/** Searched when a keyword search names no platforms. */
export const DEFAULT_KEYWORD_PLATFORMS = ['twitter', 'reddit', 'bluesky', 'youtube'] as const;

/** What a user search can analyse (`platform` of POST /api/iq/user_search). */
export const USER_SEARCH_PLATFORMS = ['twitter', 'facebook', 'instagram'] as const;

/** The values of posts_data's `platform` filter besides `all`: no `threads`, no `youtube_comment`. */
export const UPSTREAM_POSTS_FILTERS = [
  'twitter',
  'reddit',
  'bluesky',
  'youtube',
  'instagram',
  'facebook',
  'weibo',
  'linkedin',
] as const;

/**
 * Every kind of post a search returns, in the order results list them: the keys of a keyword search's
 * `results.posts` (YouTube's comments apart from its videos, as `youtube_comment`) and the `platform`
 * of posts_data records (Instagram's from user searches). The posts tools filter by these.
 */
export const POST_KINDS = [
  'twitter',
  'reddit',
  'bluesky',
  'youtube',
  'youtube_comment',
  'threads',
  'facebook',
  'instagram',
  'weibo',
  'linkedin',
] as const;
export type PostKind = (typeof POST_KINDS)[number];

/** Platforms a keyword search has topic trees for: all it searches but LinkedIn. */
export const TOPIC_TREE_PLATFORMS = KEYWORD_SEARCH_PLATFORMS.filter(
  (p): p is Exclude<(typeof KEYWORD_SEARCH_PLATFORMS)[number], 'linkedin'> => p !== 'linkedin',
);

/** The kind of post whose interaction figure upstream gives as views, not interactions (documented). */
export const VIEWS_FOR_INTERACTIONS = 'youtube';

/**
 * Which kind of post a posts_data record is: its `platform`, except a YouTube record whose link is a
 * comment's (YouTube links a comment as `watch?v=<video>&lc=<comment>`). The description names no
 * platform value for comments; whichever one upstream uses, a comment is counted and filtered as a
 * `youtube_comment`, as results.posts counts it.
 */
export function postKindOf(record: { platform?: unknown; post_url?: unknown }): string {
  const platform =
    typeof record.platform === 'string' && record.platform !== '' ? record.platform : 'unknown';
  if (platform === 'youtube' && typeof record.post_url === 'string' && /[?&]lc=/.test(record.post_url))
    return 'youtube_comment';
  return platform;
}

/**
 * The posts_data filter to ask upstream for one kind of post: the kind itself where the filter has it,
 * otherwise every post (`undefined`), which the gateway then filters itself.
 */
export function upstreamPostsFilter(kind: string): string | undefined {
  return (UPSTREAM_POSTS_FILTERS as readonly string[]).includes(kind) ? kind : undefined;
}

/** Hosts of each kind of post, as its links name them. */
const POST_HOSTS: ReadonlyArray<readonly [RegExp, string]> = [
  [/(^|\.)(x|twitter)\.com$/, 'twitter'],
  [/(^|\.)reddit\.com$|(^|\.)redd\.it$/, 'reddit'],
  [/(^|\.)bsky\.app$/, 'bluesky'],
  [/(^|\.)youtube\.com$|(^|\.)youtu\.be$/, 'youtube'],
  [/(^|\.)threads\.(net|com)$/, 'threads'],
  [/(^|\.)facebook\.com$|(^|\.)fb\.com$/, 'facebook'],
  [/(^|\.)instagram\.com$/, 'instagram'],
  [/(^|\.)weibo\.(com|cn)$/, 'weibo'],
  [/(^|\.)linkedin\.com$/, 'linkedin'],
];

/**
 * Which kind of post a compact post is where no list says (a keyword search's `tweet_preview`, whose
 * posts carry no platform): its link's host (`youtube.com`), or a first path segment that names a
 * kind (`/youtube/watch?v=…`, as links through a proxy or mirror read); a twitter post by its user
 * fields (documented for twitter alone). A YouTube link to a comment is a `youtube_comment`, as in
 * postKindOf. Undefined when the record does not tell.
 */
export function compactPostKind(post: { l?: unknown; u_id?: unknown }): string | undefined {
  let kind: string | undefined;
  if (typeof post.l === 'string') {
    try {
      const link = new URL(post.l);
      const host = link.hostname.toLowerCase();
      kind = POST_HOSTS.find(([pattern]) => pattern.test(host))?.[1];
      const first = link.pathname.split('/')[1] ?? '';
      if (!kind && (POST_KINDS as readonly string[]).includes(first)) kind = first;
    } catch {
      // Not a link: the user fields may still tell.
    }
  }
  kind ??= post.u_id !== undefined ? 'twitter' : undefined;
  if (kind === 'youtube' && typeof post.l === 'string' && /[?&]lc=/.test(post.l)) return 'youtube_comment';
  return kind;
}
