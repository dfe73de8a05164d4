import { compactPostKind, POST_KINDS, postKindOf, VIEWS_FOR_INTERACTIONS } from '../../upstream/platforms.js';
import { clip } from './fence.js';
import { day, isRecord, num } from './format.js';

/**
 * One post in the shape the summaries show and `structuredContent` carries: the same few fields
 * whichever upstream shape it came from (the compact `d/n/l/t/i` posts of a search's results and
 * preview, or a posts_data record with its per-platform fields).
 *
 * `interactions` is one measure for every platform: likes, comments, shares and the like, as upstream
 * counts them. Upstream's figure for a YouTube video is its views, so a video's interactions are its
 * likes plus comments and its views are given apart, as `views`.
 */
export interface PostSummary {
  /** The kind of post (platforms.ts POST_KINDS); absent where neither its list nor its record tells. */
  platform?: string;
  author?: string;
  date?: string;
  interactions?: number;
  views?: number;
  /** The author's followers, where the record gives them (twitter and LinkedIn posts_data). */
  followers?: number;
  url?: string;
  text: string;
  sentiment?: string;
  emotion?: string;
}

function numberOf(value: unknown): number | undefined {
  const n = typeof value === 'number' ? value : typeof value === 'string' ? Number(value) : Number.NaN;
  return Number.isFinite(n) && !(typeof value === 'string' && value.trim() === '') ? n : undefined;
}

function stringOf(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function summary(fields: PostSummary): PostSummary {
  const out: Record<string, unknown> = {};
  for (const k in fields) {
    const v = fields[k as keyof PostSummary];
    if (v !== undefined) out[k] = v;
  }
  return out as unknown as PostSummary;
}

function sum(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined || b === undefined ? undefined : a + b;
}

/** A post's counts as upstream gives them, whichever shape they came in. */
export interface PostCounts {
  /** Upstream's interaction figure (`i`, `total_interactions_count`): a YouTube video's is its views. */
  figure?: number | undefined;
  likes?: number | undefined;
  comments?: number | undefined;
  views?: number | undefined;
}

/**
 * The one definition of a post's interactions, used by previews, lists, rankings and summaries alike:
 * upstream's interaction figure (likes, comments, shares and the like), except for a YouTube video,
 * whose figure is its views: its interactions are its likes plus comments, and its views are given
 * apart, as views.
 */
export function postInteractions(
  kind: string | undefined,
  counts: PostCounts,
): { interactions?: number; views?: number } {
  if (kind !== VIEWS_FOR_INTERACTIONS)
    return counts.figure === undefined ? {} : { interactions: counts.figure };
  const interactions = sum(counts.likes, counts.comments);
  const views = counts.views ?? counts.figure;
  return {
    ...(interactions === undefined ? {} : { interactions }),
    ...(views === undefined ? {} : { views }),
  };
}

/** A compact post's counts (`i`, `like`, `comment`, `view`). */
function compactCounts(post: Record<string, unknown>): PostCounts {
  return {
    figure: numberOf(post.i),
    likes: numberOf(post.like),
    comments: numberOf(post.comment),
    views: numberOf(post.view),
  };
}

/** A compact post's interactions (the one measure every ranking uses); no summary is built for it. */
export function compactInteractions(kind: string | undefined, post: unknown): number | undefined {
  return isRecord(post) ? postInteractions(kind, compactCounts(post)).interactions : undefined;
}

/**
 * A compact post (`d` text, `n` author, `l` URL, `t` time, `i` interactions) of `kind`; where no list
 * names its kind (a keyword search's preview), the kind its own record tells (compactPostKind).
 */
export function fromCompact(kind: string | undefined, post: unknown): PostSummary {
  const p = isRecord(post) ? post : {};
  const platform = kind ?? compactPostKind(p);
  return summary({
    platform,
    author: stringOf(p.n),
    date: stringOf(p.t),
    ...postInteractions(platform, compactCounts(p)),
    url: stringOf(p.l),
    text: String(p.d ?? ''),
  });
}

/** A posts_data record (LinkedIn's differ: user_name, date_published, url, no interaction count). */
export function fromPostsData(post: unknown): PostSummary {
  const p = isRecord(post) ? post : {};
  const kind = postKindOf(p);
  const stats = isRecord(p.statistics) ? p.statistics : {};
  return summary({
    platform: kind,
    author: stringOf(p.username) ?? stringOf(p.user_name),
    date: stringOf(p.created_at) ?? stringOf(p.date_published),
    ...postInteractions(kind, {
      figure: numberOf(p.total_interactions_count),
      likes: numberOf(stats.like_count),
      comments: numberOf(stats.comment_count),
      views: numberOf(stats.view_count),
    }),
    followers: numberOf(p.followers_count) ?? numberOf(p.user_follower_count),
    url: stringOf(p.post_url) ?? stringOf(p.url),
    text: String(p.text ?? p.shared_content_text ?? ''),
    sentiment: stringOf(p.sentiment),
    emotion: stringOf(p.emotion),
  });
}

/** Where a kind of post stands in lists: POST_KINDS order, unknown kinds after, by name. */
export function kindRank(kind: string | undefined): number {
  const i = (POST_KINDS as readonly string[]).indexOf(kind ?? '');
  return i < 0 ? POST_KINDS.length : i;
}

export function byKindOrder(a: string, b: string): number {
  return kindRank(a) - kindRank(b) || a.localeCompare(b);
}

/** Most interactions first; ties (and posts without a count, last) by kind order, then as given. */
function ranked<T>(
  items: readonly T[],
  measure: (item: T) => number | undefined,
  kind: (item: T) => string | undefined,
) {
  return items
    .map((item, index) => ({ item, index, m: measure(item) ?? -1, k: kindRank(kind(item)) }))
    .sort((a, b) => b.m - a.m || a.k - b.k || a.index - b.index)
    .map((x) => x.item);
}

/** The `n` posts with most interactions, across platforms: one sorted list, one measure. */
export function topByInteractions(posts: readonly PostSummary[], n: number): PostSummary[] {
  return ranked(
    posts,
    (p) => p.interactions,
    (p) => p.platform,
  ).slice(0, n);
}

/**
 * The top `n` of a search's compact posts, given per kind (`{twitter: [post…], …}`): what
 * topByInteractions picks from all of them summarized, with only the picked ones summarized (a search
 * has up to thousands of posts; a summary shows ten).
 */
export function topCompactPosts(byKind: Record<string, unknown>, n: number): PostSummary[] {
  const all: Array<{ kind: string; post: unknown }> = [];
  for (const [kind, list] of Object.entries(byKind)) {
    if (Array.isArray(list)) for (const post of list) all.push({ kind, post });
  }
  return ranked(
    all,
    (x) => compactInteractions(x.kind, x.post),
    (x) => x.kind,
  )
    .slice(0, n)
    .map((x) => fromCompact(x.kind, x.post));
}

/** Newest first (ISO-like dates sort as text); undated posts last. */
export function newestFirst(posts: readonly PostSummary[], n: number): PostSummary[] {
  return posts
    .map((post, index) => ({ post, index }))
    .sort((a, b) => (b.post.date ?? '').localeCompare(a.post.date ?? '') || a.index - b.index)
    .slice(0, n)
    .map((x) => x.post);
}

/** What a post line leaves out because every line would repeat it (a user search's own account). */
export interface LineContext {
  platform?: string;
  author?: string;
}

/** An author as a line shows it: `@handle`, or a display name (LinkedIn's have spaces) as it is. */
export function authorLabel(author: string): string {
  const name = clip(author, 60);
  return /\s/.test(name) ? name : `@${name}`;
}

/** `3. twitter · @author · 2026-11-23 · 1,234 interactions · negative, sad · URL — text…` */
export function postLine(post: PostSummary, position: number, known: LineContext = {}): string {
  const parts: string[] = [];
  if (post.platform && post.platform !== known.platform) parts.push(post.platform);
  if (post.author && post.author !== known.author) parts.push(authorLabel(post.author));
  if (post.date) parts.push(day(post.date));
  if (post.interactions !== undefined) parts.push(`${num(post.interactions)} interactions`);
  if (post.views !== undefined) parts.push(`${num(post.views)} views`);
  // A line about a known account (a user search's own) leaves its followers to the profile above.
  if (post.followers !== undefined && !known.author) parts.push(`${num(post.followers)} followers`);
  const mood = [post.sentiment, post.emotion].filter(Boolean).join(', ');
  if (mood) parts.push(clip(mood, 40));
  if (post.url) parts.push(clip(post.url, 200));
  return `${position}. ${parts.join(' · ')} — ${clip(post.text)}`;
}
