import { clip } from './fence.js';
import { day, isRecord, num } from './format.js';

/**
 * One post in the shape the summaries show and `structuredContent` carries: the same few fields
 * whichever upstream shape it came from (the compact `d/n/l/t/i` posts of a search's results and
 * preview, or a posts_data record with its per-platform fields).
 */
export interface PostSummary {
  platform: string;
  author?: string;
  date?: string;
  interactions?: number;
  url?: string;
  text: string;
  sentiment?: string;
  emotion?: string;
}

function numberOf(value: unknown): number | undefined {
  const n = typeof value === 'number' ? value : typeof value === 'string' ? Number(value) : Number.NaN;
  return Number.isFinite(n) ? n : undefined;
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

/** A compact post (`d` text, `n` author, `l` URL, `t` time, `i` interactions) of `platform`. */
export function fromCompact(platform: string, post: unknown): PostSummary {
  const p = isRecord(post) ? post : {};
  return summary({
    platform,
    author: stringOf(p.n),
    date: stringOf(p.t),
    interactions: numberOf(p.i),
    url: stringOf(p.l),
    text: String(p.d ?? ''),
  });
}

/** A posts_data record (LinkedIn's differ: user_name, date_published, url, no interaction count). */
export function fromPostsData(post: unknown): PostSummary {
  const p = isRecord(post) ? post : {};
  return summary({
    platform: String(p.platform ?? 'unknown'),
    author: stringOf(p.username) ?? stringOf(p.user_name),
    date: stringOf(p.created_at) ?? stringOf(p.date_published),
    interactions: numberOf(p.total_interactions_count),
    url: stringOf(p.post_url) ?? stringOf(p.url),
    text: String(p.text ?? p.shared_content_text ?? ''),
    sentiment: stringOf(p.sentiment),
    emotion: stringOf(p.emotion),
  });
}

function byInteractions(posts: readonly PostSummary[]): PostSummary[] {
  return posts
    .map((post, index) => ({ post, index }))
    .sort((a, b) => (b.post.interactions ?? -1) - (a.post.interactions ?? -1) || a.index - b.index)
    .map((x) => x.post);
}

/**
 * The top `n` posts: each platform's posts by interactions, taken in turn across platforms (the
 * busiest platform first). Interaction counts are not comparable across platforms — YouTube's are
 * views — so a plain sort would fill the list with one platform.
 */
export function topByInteractions(posts: readonly PostSummary[], n: number): PostSummary[] {
  const byPlatform = new Map<string, PostSummary[]>();
  for (const post of posts) {
    const list = byPlatform.get(post.platform);
    if (list) list.push(post);
    else byPlatform.set(post.platform, [post]);
  }
  const queues = [...byPlatform.values()].map(byInteractions).sort((a, b) => b.length - a.length);
  const top: PostSummary[] = [];
  for (let round = 0; top.length < n && queues.some((q) => q.length > round); round++) {
    for (const queue of queues) {
      const post = queue[round];
      if (post && top.length < n) top.push(post);
    }
  }
  return top;
}

/**
 * The top `n` of a search's compact posts, given per platform (`{twitter: [post…], …}`): the posts
 * topByInteractions would pick from all of them as summaries, with only the picked ones summarized (a
 * search has up to hundreds of posts per platform; a summary shows ten).
 */
export function topCompactPosts(byPlatform: Record<string, unknown>, n: number): PostSummary[] {
  const queues: Array<{ platform: string; list: unknown[]; order: number[] }> = [];
  for (const [platform, list] of Object.entries(byPlatform)) {
    if (!Array.isArray(list) || list.length === 0) continue;
    const keys = list.map((post) => (isRecord(post) ? numberOf(post.i) : undefined) ?? -1);
    const order = keys.map((_, i) => i).sort((a, b) => (keys[b] as number) - (keys[a] as number) || a - b);
    queues.push({ platform, list, order });
  }
  queues.sort((a, b) => b.list.length - a.list.length);
  const top: PostSummary[] = [];
  for (let round = 0; top.length < n && queues.some((q) => q.list.length > round); round++) {
    for (const queue of queues) {
      const index = queue.order[round];
      if (index !== undefined && top.length < n) top.push(fromCompact(queue.platform, queue.list[index]));
    }
  }
  return top;
}

/** What a post line leaves out because every line would repeat it (a user search's own account). */
export interface LineContext {
  platform?: string;
  author?: string;
}

/** `3. twitter · @author · 2026-11-23 · 1,234 interactions · negative, sad · URL — text…` */
export function postLine(post: PostSummary, position: number, known: LineContext = {}): string {
  const parts: string[] = [];
  if (post.platform !== known.platform) parts.push(post.platform);
  if (post.author && post.author !== known.author) {
    const author = clip(post.author, 60);
    parts.push(/\s/.test(author) ? author : `@${author}`);
  }
  if (post.date) parts.push(day(post.date));
  if (post.interactions !== undefined) parts.push(`${num(post.interactions)} interactions`);
  const mood = [post.sentiment, post.emotion].filter(Boolean).join(', ');
  if (mood) parts.push(clip(mood, 40));
  if (post.url) parts.push(clip(post.url, 200));
  return `${position}. ${parts.join(' · ')} — ${clip(post.text)}`;
}
