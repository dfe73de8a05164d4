import { dayOf, isRecord } from '../common/dom.js';

/**
 * What the search view draws, read from a keyword or user search tool result (structuredContent,
 * docs/tools.md, "What a result looks like") and from the posts the view reads through the host.
 */
export interface Post {
  platform: string;
  author?: string;
  date?: string;
  interactions?: number;
  /** A YouTube video's views, apart from its interactions (likes + comments). */
  views?: number;
  url?: string;
  text?: string;
  sentiment?: string;
  emotion?: string;
}

export interface Voice {
  author: string;
  platform: string;
  posts: number;
  interactions?: number;
  followers?: number;
}

export interface Breakout {
  day: string;
  height?: number;
  summary?: string;
}

export interface SearchModel {
  kind: 'keyword' | 'user';
  searchId: number;
  query: string;
  status: string;
  statusText?: string;
  percentage?: number;
  completed: boolean;
  failed: boolean;
  /** Posts per platform, in the result's order (keyword searches). */
  postCounts: Record<string, number>;
  /** Upstream's sentiment label per platform (keyword searches). */
  platformSentiment: Record<string, string>;
  breakouts: Breakout[];
  topPosts: Post[];
  /** The accounts whose posts drew most interactions (keyword searches). */
  topVoices: Voice[];
  /** Preview posts of a search still running. */
  preview: boolean;
  /** Profile lines of a user search. */
  profile: string[];
  /** A date range the result itself states (a user search's collection period). */
  range?: { from: string; to: string };
  platform?: string;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const numOf = (v: unknown): number | undefined => {
  const n = typeof v === 'string' ? Number(v) : v;
  return typeof n === 'number' && Number.isFinite(n) ? n : undefined;
};

const sumOf = (a: number | undefined, b: number | undefined) =>
  a === undefined || b === undefined ? undefined : a + b;

/** A post from a summary result or posts page ({platform, author, date, …}). */
export function toPost(value: unknown, platform?: string): Post | null {
  if (!isRecord(value)) return null;
  // The compact upstream shape (detail "full"): d text, i interactions, l link, n author, t time.
  const compact = 'd' in value || 'l' in value;
  const post: Post = {
    platform: str(value.platform) ?? platform ?? 'unknown',
    author: str(compact ? value.n : value.author),
    date: str(compact ? value.t : value.date),
    // A YouTube video's `i` is its views: its interactions are its likes and comments, as in summaries.
    interactions:
      compact && platform === 'youtube'
        ? sumOf(numOf(value.like), numOf(value.comment))
        : numOf(compact ? value.i : value.interactions),
    views: compact && platform === 'youtube' ? numOf(value.i) : numOf(value.views),
    url: str(compact ? value.l : value.url),
    text: str(compact ? value.d : value.text),
    sentiment: str(value.sentiment),
    emotion: str(value.emotion),
  };
  return post;
}

function posts(list: unknown, platform?: string): Post[] {
  return Array.isArray(list) ? list.map((p) => toPost(p, platform)).filter((p): p is Post => p !== null) : [];
}

function breakouts(results: Record<string, unknown>): Breakout[] {
  const moments = Array.isArray(results.breakout_moment) ? results.breakout_moment : [];
  return moments.filter(isRecord).flatMap((m) => {
    const day = dayOf(m.time);
    return day ? [{ day, height: numOf(m.height), summary: str(m.summary) }] : [];
  });
}

function profileLines(results: Record<string, unknown>): string[] {
  const lines: string[] = [];
  const name = str(results.name);
  const followers = numOf(results.num_followers);
  const parts = [
    name,
    results.verified === true ? 'verified' : undefined,
    str(results.account_type),
    str(results.country_name),
    followers !== undefined ? `${followers.toLocaleString('en')} followers` : undefined,
  ].filter(Boolean);
  if (parts.length) lines.push(parts.join(' · '));
  const summary = str(results.ai_summary);
  if (summary) lines.push(summary);
  return lines;
}

/** The model of a keyword or user search result, or null when the result is not one. */
export function readSearch(content: unknown, toolName?: string): SearchModel | null {
  if (!isRecord(content) || typeof content.search_id !== 'number') return null;
  const results = isRecord(content.results) ? content.results : null;
  // A user search names its platform; a keyword search's result has none at the top.
  const looksUser = typeof content.platform === 'string' || (toolName ? /user_search/.test(toolName) : false);
  const looksKeyword =
    isRecord(content.post_counts) ||
    (results !== null && ('sentiment' in results || 'breakout_moment' in results));
  if (!looksUser && !looksKeyword && typeof content.status !== 'string') return null;
  const kind = looksUser ? 'user' : 'keyword';
  const status = str(content.status) ?? 'pending';
  const model: SearchModel = {
    kind,
    searchId: content.search_id,
    query: str(content.query) ?? '',
    status,
    statusText: str(content.status_text),
    percentage: numOf(content.status_percentage),
    completed: content.completed === true,
    failed: status === 'failed',
    postCounts: {},
    platformSentiment: {},
    breakouts: [],
    topPosts: [],
    topVoices: [],
    preview: false,
    profile: [],
    platform: str(content.platform),
  };
  if (isRecord(content.post_counts)) {
    for (const [platform, count] of Object.entries(content.post_counts)) {
      const n = numOf(count);
      if (n !== undefined) model.postCounts[platform] = n;
    }
  }
  if (results) {
    if (isRecord(results.sentiment))
      for (const [platform, label] of Object.entries(results.sentiment))
        if (typeof label === 'string') model.platformSentiment[platform] = label;
    model.breakouts = breakouts(results);
    if (kind === 'user') {
      model.profile = profileLines(results);
      const from = dayOf(results.collection_start_date);
      const to = dayOf(results.collection_end_date);
      if (from && to) model.range = { from, to };
    }
    // detail "full": the posts arrays themselves.
    if (isRecord(results.posts)) {
      const all: Post[] = [];
      for (const [platform, list] of Object.entries(results.posts)) {
        const some = posts(list, platform);
        if (!(platform in model.postCounts)) model.postCounts[platform] = some.length;
        all.push(...some);
      }
      model.topPosts = all.sort((a, b) => (b.interactions ?? 0) - (a.interactions ?? 0)).slice(0, 10);
    }
  }
  if (Array.isArray(content.top_posts)) model.topPosts = posts(content.top_posts, model.platform);
  if (Array.isArray(content.top_voices))
    model.topVoices = content.top_voices.filter(isRecord).flatMap((v) => {
      const author = str(v.author);
      const platform = str(v.platform);
      const count = numOf(v.posts);
      return author && platform && count !== undefined
        ? [
            {
              author,
              platform,
              posts: count,
              interactions: numOf(v.interactions),
              followers: numOf(v.followers),
            },
          ]
        : [];
    });
  else if (Array.isArray(content.preview_posts)) {
    model.topPosts = posts(content.preview_posts, model.platform);
    model.preview = true;
  }
  return model;
}

export interface Aggregates {
  platforms: string[];
  sentiment: Record<string, Record<string, number>>;
  emotion: Record<string, Record<string, number>>;
  emotions: string[];
  days: string[];
  perDay: number[];
  from?: string;
  to?: string;
}

export const SENTIMENTS = ['positive', 'neutral', 'negative', 'irrelevant'] as const;

/**
 * The emotions the charts draw, each with one colour in every search: upstream's spellings of one
 * emotion counted together (happy and happiness), any other emotion as `other`.
 */
const EMOTION_OF: Record<string, string> = {
  happy: 'happy',
  happiness: 'happy',
  joy: 'happy',
  surprise: 'surprise',
  neutral: 'neutral',
  sad: 'sad',
  sadness: 'sad',
  fear: 'fear',
  angry: 'angry',
  anger: 'angry',
  irrelevant: 'irrelevant',
};
const EMOTION_ORDER = ['happy', 'surprise', 'neutral', 'sad', 'fear', 'angry', 'other', 'irrelevant'];

/** The colour class of an emotion: neutral and irrelevant mean what the sentiments of that name do. */
export function emotionClass(emotion: string): string {
  return emotion === 'neutral' || emotion === 'irrelevant' ? emotion : `emotion-${emotion}`;
}

function allDays(from: string, to: string): string[] {
  const days: string[] = [];
  const end = Date.parse(`${to}T00:00:00Z`);
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= end && days.length < 3660; t += 86_400_000)
    days.push(new Date(t).toISOString().slice(0, 10));
  return days;
}

/** Sentiment and emotions per platform, and posts per day (every day from the first to the last). */
export function aggregate(all: Post[], order: string[], breakoutDays: string[]): Aggregates {
  const platforms = [...order];
  const sentiment: Aggregates['sentiment'] = {};
  const emotion: Aggregates['emotion'] = {};
  const emotionTotals = new Map<string, number>();
  const perDayMap = new Map<string, number>();
  for (const post of all) {
    if (!platforms.includes(post.platform)) platforms.push(post.platform);
    const s = sentiment[post.platform] ?? {};
    sentiment[post.platform] = s;
    const sKey = (post.sentiment ?? 'unknown').toLowerCase();
    s[sKey] = (s[sKey] ?? 0) + 1;
    const e = emotion[post.platform] ?? {};
    emotion[post.platform] = e;
    const eKey = EMOTION_OF[(post.emotion ?? '').toLowerCase()] ?? 'other';
    e[eKey] = (e[eKey] ?? 0) + 1;
    emotionTotals.set(eKey, (emotionTotals.get(eKey) ?? 0) + 1);
    const day = dayOf(post.date);
    if (day) perDayMap.set(day, (perDayMap.get(day) ?? 0) + 1);
  }
  const emotions = EMOTION_ORDER.filter((e) => emotionTotals.has(e));
  const known = [...perDayMap.keys(), ...breakoutDays].sort();
  const from = known[0];
  const to = known[known.length - 1];
  const days = from && to ? allDays(from, to) : [];
  return {
    platforms: platforms.filter((p) => sentiment[p]),
    sentiment,
    emotion,
    emotions,
    days,
    perDay: days.map((d) => perDayMap.get(d) ?? 0),
    ...(from ? { from } : {}),
    ...(to ? { to } : {}),
  };
}
