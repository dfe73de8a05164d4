import type { SearchDetails } from '../../upstream/schemas.js';
import { analysisLines, postCounts } from './analysis.js';
import { clip, fenced } from './fence.js';
import { counts, isRecord, num, percentOf, withoutNulls } from './format.js';
import { link, postsUri, searchUri, topicTreeUri } from './links.js';
import type { ResultOutput as ToolOutput } from './output.js';
import { type Detail, POSTS_LIMIT_DEFAULT } from './output.js';
import { fromCompact, type PostSummary, postLine, topByInteractions, topCompactPosts } from './posts.js';
import type { Truncation } from './shape.js';
import { userProfileLines } from './user-profile.js';

/**
 * Keyword and user searches as results written for the model (issue 16): with `detail: "summary"`,
 * markdown with the status, the analysis in compact form, the top posts by interactions inside the
 * untrusted-content fence, and where the rest is; `structuredContent` holds the whole analysis (the
 * posts arrays aside) and those posts. With `detail: "full"`, the complete record as JSON, size-capped
 * with a report that says where each trimmed posts array continues.
 */
export interface SearchView {
  kind: 'keyword' | 'user';
  record: SearchDetails;
  completed: boolean;
  nextStep?: string;
  detail: Detail;
  top: number;
  /** Posts read from posts_data, for searches whose details carry none (user, LinkedIn). */
  posts?: PostSummary[];
  /** Why those posts could not be read, when reading them failed. */
  postsError?: string;
}

const TOOLS = {
  keyword: { get: 'get_keyword_search', posts: 'get_keyword_search_posts_data', label: 'Keyword search' },
  user: { get: 'get_user_search', posts: 'get_user_search_posts_data', label: 'User search' },
} as const;

/** The platforms posts_data serves, so a trimmed `results.posts.<platform>` can continue there. */
const PAGED_PLATFORMS = new Set([
  'twitter',
  'reddit',
  'bluesky',
  'youtube',
  'instagram',
  'facebook',
  'weibo',
  'linkedin',
]);

function headline(view: SearchView): string {
  const { record, kind } = view;
  const what =
    kind === 'user'
      ? `@${clip(record.query ?? '?', 80).replace(/^@/, '')}${record.platform ? ` (${record.platform})` : ''}`
      : `\`${clip(record.query ?? '', 200).replace(/`/g, "'")}\``;
  const status = record.status ?? 'pending';
  let state: string;
  if (!view.completed) state = `still ${status} (${percentOf(record.status_percentage)}%)`;
  else if (status === 'failed') state = `failed: ${clip(record.status_text ?? 'no reason given', 200)}`;
  else state = status;
  return `${TOOLS[kind].label} ${record.id} ${what}: ${state}.`;
}

/** Posts to pick the top ones from: how many there are, and the top `n` of them. */
interface Candidates {
  total: number;
  top(n: number): PostSummary[];
}

const listed = (posts: PostSummary[]): Candidates => ({
  total: posts.length,
  top: (n) => topByInteractions(posts, n),
});

/** A search's compact posts per platform, summarized only once picked (posts.ts: topCompactPosts). */
function compactPosts(map: unknown): Candidates {
  if (!isRecord(map)) return listed([]);
  let total = 0;
  for (const list of Object.values(map)) if (Array.isArray(list)) total += list.length;
  return { total, top: (n) => topCompactPosts(map, n) };
}

function previewPosts(record: SearchDetails): PostSummary[] {
  const platform = record.platform ?? 'twitter';
  return (record.tweet_preview ?? []).map((p) => fromCompact(platform, p));
}

function moreLine(view: SearchView, hasResults: boolean): string {
  const { kind, record } = view;
  const tools = TOOLS[kind];
  const parts = [
    `all posts, ${POSTS_LIMIT_DEFAULT} per call: ${tools.posts} (search_id ${record.id}, offset)`,
  ];
  if (kind === 'keyword' && hasResults) parts.push(`topic trees: get_keyword_search_topic_tree`);
  parts.push(`the whole record: ${tools.get} with detail "full"`);
  return `More: ${parts.join('; ')}.`;
}

function links(view: SearchView) {
  const { kind, record } = view;
  const out = [
    link(searchUri(kind, record.id), `${kind} search ${record.id}`, 'application/json', 'Whole record'),
    link(postsUri(kind, record.id), `${kind} search ${record.id} posts`, 'application/json', 'Posts, paged'),
  ];
  if (kind === 'keyword' && record.results != null)
    out.push(link(topicTreeUri(record.id), `keyword search ${record.id} topic trees`, 'application/json'));
  return out;
}

function baseData(view: SearchView): Record<string, unknown> {
  const { record } = view;
  return withoutNulls({
    search_id: record.id,
    completed: view.completed,
    next_step: view.nextStep,
    detail: view.detail,
  });
}

function summaryOutput(view: SearchView): ToolOutput {
  const { record, kind } = view;
  const results = isRecord(record.results) ? record.results : null;
  const lines = [headline(view)];
  const untrusted: string[] = [];
  const data: Record<string, unknown> = {
    ...baseData(view),
    ...withoutNulls({
      status: record.status,
      status_text: record.status_text,
      status_percentage: record.status_percentage,
      query: record.query,
      platform: record.platform,
    }),
  };

  let posts = listed([]);
  let postsLabel = 'posts';
  if (results && kind === 'keyword') {
    const { posts: _posts, ...analysis } = results;
    const perPlatform = postCounts(results);
    const total = Object.values(perPlatform).reduce((a, b) => a + b, 0);
    lines.push(`${num(total)} posts: ${counts(perPlatform, 20)}.`);
    const analysed = analysisLines(results);
    lines.push(...analysed.facts);
    untrusted.push(...analysed.untrusted);
    data.results = analysis;
    data.post_counts = perPlatform;
    posts = compactPosts(results.posts);
  } else if (results && kind === 'user') {
    const profile = userProfileLines(results);
    lines.push(...profile.facts);
    untrusted.push(...profile.untrusted);
    data.results = results;
  } else if (view.completed && record.status !== 'failed') {
    lines.push(
      kind === 'keyword'
        ? 'It finished without analysis results: LinkedIn searches have none; for others they may still be being written, so read it again in a minute.'
        : 'No profile analytics (they exist for twitter accounts only).',
    );
  }
  if (view.posts) posts = listed(view.posts);
  if (!view.completed && posts.total === 0) {
    posts = listed(previewPosts(record));
    postsLabel = 'preview posts';
  }
  const top = posts.top(view.top);
  // A user search's posts are all the account's own, on one platform: the lines need not repeat it.
  const known =
    kind === 'user' && record.platform
      ? { platform: record.platform, author: (record.query ?? '').replace(/^@/, '') }
      : {};
  if (top.length) {
    untrusted.unshift(
      `Top ${top.length} of ${num(posts.total)} ${postsLabel} by interactions:`,
      ...top.map((p, i) => postLine(p, i + 1, known)),
    );
  }
  data[postsLabel === 'posts' ? 'top_posts' : 'preview_posts'] = top;
  if (view.postsError) lines.push(`Posts could not be read: ${view.postsError}`);
  const fence = fenced(untrusted);
  if (fence) lines.push('', fence);
  if (view.nextStep) lines.push('', view.nextStep);
  else if (view.completed && record.status !== 'failed') lines.push('', moreLine(view, results !== null));
  return { data, text: lines.join('\n'), untrusted: true, links: view.completed ? links(view) : [] };
}

function fullOutput(view: SearchView): ToolOutput {
  const { record, kind } = view;
  const rest = (t: Truncation): string | null => {
    const match = /^results\.posts\.(\w+)$/.exec(t.path);
    if (kind !== 'keyword' || t.kind !== 'array' || !match?.[1] || !PAGED_PLATFORMS.has(match[1]))
      return null;
    return `${TOOLS.keyword.posts} with search_id ${record.id}, platform "${match[1]}", offset ${t.kept}`;
  };
  return {
    data: { ...baseData(view), ...withoutNulls(record as Record<string, unknown>) },
    text: [headline(view), view.nextStep].filter(Boolean).join(' '),
    json: true,
    untrusted: true,
    links: view.completed ? links(view) : [],
    rest,
  };
}

export function searchOutput(view: SearchView): ToolOutput {
  return view.detail === 'full' ? fullOutput(view) : summaryOutput(view);
}
