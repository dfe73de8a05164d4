import { POST_KINDS, type PostKind } from '../../upstream/platforms.js';
import type { SearchDetails } from '../../upstream/schemas.js';
import { type AnalysisLines, analysisLines } from './analysis.js';
import { clip, fenced, typedFence } from './fence.js';
import { isRecord, num, percentOf, plural, withoutNulls } from './format.js';
import { link, postsUri, searchUri, topicTreeUri } from './links.js';
import { authorLabel, type LineContext, type PostSummary, postLine } from './posts.js';
import { type PreviewShown, previewOf } from './preview.js';
import type { ResultOutput as ToolOutput } from './result-output.js';
import { type Detail, POSTS_LIMIT_DEFAULT } from './result-output.js';
import { analysedPlatforms, type RecordPosts, type SearchFacts, searchFacts } from './search-facts.js';
import type { Truncation } from './shape.js';
import { userProfileLines } from './user-profile.js';

/**
 * Keyword and user searches as results written for the model: with `detail: "summary"`, markdown with
 * the status, how many posts of each platform, the analysis in compact form, the top posts and top
 * voices inside the untrusted-content fence, and where the rest is; `structuredContent` holds the whole
 * analysis (the posts arrays aside), the counts and those lists. Every count, ranking and platform name
 * comes from search-facts.ts, computed once from the record. With `detail: "full"`, the complete record as JSON, size-capped
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
  /** Followers by `platform\u0000handle`, where read besides the record (a keyword search's twitter posts). */
  followers?: ReadonlyMap<string, number>;
  /** While it runs: the preview posts this caller was not shown yet; absent, the whole preview. */
  preview?: PreviewShown;
}

const TOOLS = {
  keyword: { get: 'get_keyword_search', posts: 'get_keyword_search_posts_data', label: 'Keyword search' },
  user: { get: 'get_user_search', posts: 'get_user_search_posts_data', label: 'User search' },
} as const;

/** The search's status, then its query (or handle) inside the fence, as a person typed it. */
function headline(view: SearchView): string {
  const { record, kind } = view;
  const where = kind === 'user' && record.platform ? ` (${record.platform})` : '';
  const status = record.status ?? 'pending';
  let state: string;
  if (!view.completed)
    state = `still running (status ${status}, ${percentOf(record.status_percentage)}% done)`;
  else if (status === 'failed') state = `failed: ${clip(record.status_text ?? 'no reason given', 200)}`;
  else state = status;
  const typed =
    kind === 'user'
      ? `Handle: @${clip(record.query ?? '?', 80).replace(/^@/, '')}`
      : `Query: ${clip(record.query ?? '', 200)}`;
  return `${TOOLS[kind].label} ${record.id}${where}: ${state}.\n${typedFence([typed])}`;
}

/** A search's preview while it runs: what the caller was not shown yet, or the whole of it. */
function previewShown(view: SearchView): PreviewShown {
  return view.preview ?? { posts: previewOf(view.kind, view.record).map((p) => p.post), earlier: 0 };
}

/** The preview's lines: its new posts, fenced, and how many shown before are left out. */
function previewLines(preview: PreviewShown, known: LineContext): { lines: string[]; untrusted: string[] } {
  const { posts, earlier } = preview;
  const before = earlier
    ? `${plural(earlier, 'preview post')} shown in an earlier answer ${earlier === 1 ? 'is' : 'are'} not repeated; the finished search lists every post.`
    : '';
  if (posts.length === 0)
    return { lines: before ? [`No new preview posts since the last answer: ${before}`] : [], untrusted: [] };
  const by = posts.some((p) => p.views !== undefined)
    ? ' (YouTube videos: likes + comments; views apart)'
    : '';
  return {
    lines: before ? [before] : [],
    untrusted: [
      `${plural(posts.length, earlier ? 'new preview post' : 'preview post')}, as upstream sent them${by}:`,
      ...posts.map((p, i) => postLine(p, i + 1, known)),
    ],
  };
}

function moreLine(view: SearchView, hasResults: boolean): string {
  const { kind, record } = view;
  const tools = TOOLS[kind];
  const parts = [
    `all posts, ${POSTS_LIMIT_DEFAULT} per call: ${tools.posts} (search_id ${record.id}, offset${kind === 'keyword' ? ', platform' : ''})`,
  ];
  if (kind === 'keyword' && hasResults) parts.push(`topic trees: get_keyword_search_topic_tree`);
  return `More: ${parts.join('; ')}.`;
}

function links(view: SearchView) {
  const { kind, record } = view;
  const out = [
    link(searchUri(kind, record.id), `${kind} search ${record.id}`, 'text/markdown', 'Whole record'),
    link(postsUri(kind, record.id), `${kind} search ${record.id} posts`, 'text/markdown', 'Posts, paged'),
  ];
  if (kind === 'keyword' && record.results != null)
    out.push(link(topicTreeUri(record.id), `keyword search ${record.id} topic trees`, 'text/markdown'));
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

/** "115 posts: twitter 25, youtube 25, …", every kind the record holds, zeros included. */
function countLine(facts: SearchFacts, kind: SearchView['kind']): string[] {
  const entries = Object.entries(facts.counts)
    .sort((a, b) => b[1] - a[1])
    .map(([k, n]) => `${k} ${num(n)}`);
  const lines = [`${plural(facts.total, 'post')}${entries.length ? `: ${entries.join(', ')}` : ''}.`];
  if (facts.uncounted.length && kind === 'keyword') {
    const first = facts.uncounted[0];
    lines.push(
      `${facts.uncounted.join(', ')}: analysed, but their posts are not in the record; ${TOOLS.keyword.posts} with platform "${first}" lists them.`,
    );
  }
  return lines;
}

/** The top posts and top voices as fenced lines, each list saying what it is ranked by. */
function rankedLines(facts: SearchFacts, known: LineContext): string[] {
  const lines: string[] = [];
  if (facts.top.length) {
    const by =
      facts.rankedBy === 'interactions'
        ? ` by interactions${facts.hasViews ? ' (YouTube videos: likes + comments; views listed apart)' : ''}`
        : ', newest first (no interaction counts)';
    lines.push(
      `Top ${facts.top.length} of ${num(facts.total)} posts${by}:`,
      ...facts.top.map((p, i) => postLine(p, i + 1, known)),
    );
  }
  if (facts.voices.length) {
    const followers = facts.voices.some((v) => v.followers !== undefined);
    const by =
      facts.voicesBy === 'interactions'
        ? `by interactions on their posts here${followers ? ' (followers where upstream gives them)' : ''}`
        : 'by followers (no interaction counts)';
    lines.push(
      `Top voices ${by}:`,
      ...facts.voices.map((v) => {
        const parts = [plural(v.posts, 'post')];
        if (v.interactions !== undefined) parts.push(`${num(v.interactions)} interactions`);
        if (v.followers !== undefined) parts.push(`${num(v.followers)} followers`);
        return `- ${authorLabel(v.author)} (${v.platform}): ${parts.join(', ')}`;
      }),
    );
  }
  return lines;
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
  // A user search's posts are all the account's own, on one platform: the lines need not repeat it.
  const known: LineContext =
    kind === 'user' && record.platform
      ? { platform: record.platform, author: (record.query ?? '').replace(/^@/, '') }
      : {};

  let posts: RecordPosts | null = view.posts ? { kind: 'read', posts: view.posts } : null;
  let analysed: string[] = [];
  let analysis: AnalysisLines = { facts: [], untrusted: [] };
  if (results && kind === 'keyword') {
    const { posts: byKind, ...rest } = results;
    analysed = analysedPlatforms(results);
    posts ??= { kind: 'compact', byKind: isRecord(byKind) ? byKind : {} };
    data.results = rest;
  } else if (results && kind === 'user') {
    analysis = userProfileLines(results);
    data.results = results;
  } else if (view.completed && record.status !== 'failed') {
    lines.push(
      kind === 'keyword'
        ? 'It finished without analysis results: LinkedIn searches have none; for others they may still be being written, so read it again in a minute.'
        : 'No profile analytics (they exist for twitter accounts only).',
    );
  }
  if (posts) {
    const facts = searchFacts(posts, analysed, view.top, kind === 'keyword', view.followers);
    if (results && kind === 'keyword') analysis = analysisLines(results, facts.platforms);
    lines.push(...countLine(facts, kind));
    untrusted.push(...rankedLines(facts, known));
    data.post_counts = facts.counts;
    data.top_posts = facts.top;
    if (facts.voices.length) data.top_voices = facts.voices;
  } else if (!view.completed) {
    const preview = previewShown(view);
    const shown = previewLines(preview, known);
    lines.push(...shown.lines);
    untrusted.push(...shown.untrusted);
    data.preview_posts = preview.posts;
    if (preview.earlier) data.preview_shown_before = preview.earlier;
  }
  lines.push(...analysis.facts);
  untrusted.push(...analysis.untrusted);
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
    if (kind !== 'keyword' || t.kind !== 'array' || !match?.[1] || !POST_KINDS.includes(match[1] as PostKind))
      return null;
    return `${TOOLS.keyword.posts} with search_id ${record.id}, platform "${match[1]}", offset ${t.kept}`;
  };
  return {
    data: { ...baseData(view), ...withoutNulls(record as Record<string, unknown>) },
    text: [headline(view), view.nextStep].filter(Boolean).join('\n'),
    json: true,
    untrusted: true,
    links: view.completed ? links(view) : [],
    rest,
  };
}

export function searchOutput(view: SearchView): ToolOutput {
  return view.detail === 'full' ? fullOutput(view) : summaryOutput(view);
}
