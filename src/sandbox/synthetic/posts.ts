import { type Author, makeAuthor } from './authors.js';
import {
  CLOSERS,
  EMOTIONS_BY_SENTIMENT,
  HASHTAGS,
  OPENERS,
  type PostSentiment,
  SENTIMENT_TARGETS,
  URL_DOMAINS,
  URL_PATHS,
} from './pools.js';
import { Rng } from './prng.js';

/** Platforms whose posts the sandbox can synthesise (LinkedIn has its own shape, see linkedin.ts). */
export type PostPlatform =
  | 'twitter'
  | 'reddit'
  | 'bluesky'
  | 'youtube'
  | 'youtube_comment'
  | 'threads'
  | 'facebook'
  | 'weibo'
  | 'instagram';

/** One synthetic post in a neutral form; the per-platform wire shapes are derived from it. */
export interface SynthPost {
  platform: PostPlatform;
  id: string;
  author: Author;
  text: string;
  createdMs: number;
  likes: number;
  comments: number;
  shares: number;
  quotes: number;
  views: number;
  /** total_interactions_count / compact `i`; for YouTube it is the view count (documented). */
  interactions: number;
  sentiment: PostSentiment;
  emotion: string;
  sentimentReason: string;
  sentimentTarget: string;
  hashtags: string[];
  urls: string[];
  reactions: { name: string; count: number }[];
  postUrl: string;
  profileUrl: string;
  mediaUrl: string;
}

export interface PostWindow {
  startMs: number;
  endMs: number;
}

/** Words of a boolean query (AND/OR/NOT and parentheses removed), used for text and hashtags. */
export function queryWords(query: string): string[] {
  const words = query
    .replace(/[()"]/g, ' ')
    .split(/\s+/)
    .filter((w) => w !== '' && !['AND', 'OR', 'NOT'].includes(w))
    .map((w) => w.replace(/^[@#]/, ''));
  return words.length > 0 ? words : ['topic'];
}

export function queryHashtag(query: string): string {
  const tag = queryWords(query)
    .map((w) => w.replace(/[^\p{L}\p{N}]/gu, ''))
    .join('')
    .slice(0, 30);
  return tag === '' ? 'topic' : tag.toLowerCase();
}

/** Fraction of posts per sentiment; derived from the query so different queries read differently. */
function sentimentBias(query: string): Record<PostSentiment, number> {
  const rng = new Rng(`bias|${query.toLowerCase()}`);
  const raw = {
    positive: rng.next() + 0.2,
    negative: rng.next() + 0.2,
    neutral: rng.next() * 0.8,
    irrelevant: 0.15,
  };
  const total = raw.positive + raw.negative + raw.neutral + raw.irrelevant;
  return {
    positive: raw.positive / total,
    negative: raw.negative / total,
    neutral: raw.neutral / total,
    irrelevant: raw.irrelevant / total,
  };
}

function pickSentiment(rng: Rng, bias: Record<PostSentiment, number>): PostSentiment {
  let r = rng.next();
  for (const s of ['positive', 'negative', 'neutral'] as const) {
    if (r < bias[s]) return s;
    r -= bias[s];
  }
  return 'irrelevant';
}

const REASONS: Record<PostSentiment, string> = {
  positive: 'The author expresses approval and optimism.',
  negative: 'The author expresses frustration or disapproval.',
  neutral: 'The post reports facts without taking a side.',
  irrelevant: 'The post mentions the keywords but is about something else.',
};

function postUrl(platform: PostPlatform, author: Author, id: string): string {
  switch (platform) {
    case 'twitter':
      return `https://example.com/twitter/${author.username}/status/${id}`;
    case 'reddit':
      return `https://example.org/reddit/r/discussion/comments/${id}`;
    case 'bluesky':
      return `https://example.net/bluesky/profile/${author.username}/post/${id}`;
    case 'youtube':
      return `https://example.com/youtube/watch?v=${id}`;
    case 'youtube_comment':
      return `https://example.com/youtube/watch?v=${id}&lc=${id}c`;
    default:
      return `https://example.com/${platform}/${author.username}/posts/${id}`;
  }
}

function profileUrl(platform: PostPlatform, author: Author): string {
  const base = platform === 'youtube_comment' ? 'youtube' : platform;
  return `https://example.com/${base}/${author.username}`;
}

export interface GenerateOptions {
  /** Seed parts: same kind + query + platform → same posts. */
  kind: 'keyword' | 'user';
  query: string;
  platform: PostPlatform;
  window: PostWindow;
  count: number;
  /** User searches: every post is by this one account. */
  onlyAuthor?: string;
}

export function generatePosts(opts: GenerateOptions): SynthPost[] {
  const seed = `${opts.kind}|${opts.query.trim().toLowerCase()}|${opts.platform}`;
  const rng = new Rng(seed);
  const words = queryWords(opts.query);
  const tag = queryHashtag(opts.query);
  const bias = sentimentBias(opts.query);
  const authorCount = opts.onlyAuthor !== undefined ? 1 : rng.int(6, 10);
  const authors: Author[] = [];
  for (let a = 0; a < authorCount; a++) authors.push(makeAuthor(rng, opts.onlyAuthor));
  const span = Math.max(opts.window.endMs - opts.window.startMs, 12 * 3_600_000);
  const posts: SynthPost[] = [];
  for (let n = 0; n < opts.count; n++) {
    // Some authors post far more than others, so "top users" is meaningful.
    const author = authors[
      Math.min(authors.length - 1, Math.floor(authors.length * rng.next() ** 2))
    ] as Author;
    const id = rng.digits(opts.platform === 'youtube' ? 11 : 18);
    const sentiment = pickSentiment(rng, bias);
    const hashtags = [tag];
    if (rng.chance(0.6)) hashtags.push(rng.pick(HASHTAGS));
    const urls = rng.chance(0.4)
      ? [`https://${rng.pick(URL_DOMAINS)}/${rng.pick(URL_PATHS)}/${rng.digits(6)}`]
      : [];
    const phrase = words.slice(0, 4).join(' ');
    const text = [
      `${rng.pick(OPENERS)} ${phrase}.`,
      rng.pick(CLOSERS),
      hashtags.map((h) => `#${h}`).join(' '),
      ...urls,
    ]
      .filter((s) => s !== '')
      .join(' ');
    const views = 100 + rng.skewed(500_000);
    const likes = rng.skewed(Math.max(10, Math.floor(views / 20)));
    const comments = rng.skewed(Math.max(5, Math.floor(likes / 3) + 5));
    const shares = rng.skewed(Math.max(5, Math.floor(likes / 4) + 5));
    const quotes =
      opts.platform === 'twitter' || opts.platform === 'bluesky' ? rng.skewed(Math.floor(shares / 2) + 2) : 0;
    const reactions =
      opts.platform === 'facebook'
        ? [
            { name: 'Like', count: likes },
            { name: 'Love', count: rng.skewed(Math.floor(likes / 2) + 2) },
            { name: 'Angry', count: rng.skewed(Math.floor(likes / 4) + 2) },
          ]
        : [];
    const reactionTotal = reactions.reduce((sum, r) => sum + r.count, 0);
    let interactions: number;
    switch (opts.platform) {
      case 'youtube':
        interactions = views;
        break;
      case 'facebook':
        interactions = comments + shares + reactionTotal;
        break;
      case 'instagram':
      case 'youtube_comment':
        interactions = likes + comments;
        break;
      case 'reddit':
        interactions = likes + comments;
        break;
      default:
        interactions = likes + comments + shares + quotes;
    }
    posts.push({
      platform: opts.platform,
      id,
      author,
      text,
      createdMs: opts.window.startMs + Math.floor(rng.next() * span),
      likes,
      comments,
      shares,
      quotes,
      views,
      interactions,
      sentiment,
      emotion: rng.pick(EMOTIONS_BY_SENTIMENT[sentiment]),
      sentimentReason: REASONS[sentiment],
      sentimentTarget: rng.pick(SENTIMENT_TARGETS),
      hashtags,
      urls,
      reactions,
      postUrl: postUrl(opts.platform, author, id),
      profileUrl: profileUrl(opts.platform, author),
      mediaUrl: rng.chance(0.5) || opts.platform === 'youtube' ? `https://example.net/media/${id}.jpg` : '',
    });
  }
  posts.sort((a, b) => b.createdMs - a.createdMs);
  return posts;
}

/** `YYYY-MM-DD HH:MM:SS` (posts_data created_at). */
export function spaceTimestamp(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
}

/** ISO 8601 without zone (compact post `t`). */
export function zonelessIso(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19);
}
