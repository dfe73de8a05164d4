import { isRecord } from './format.js';
import {
  byKindOrder,
  compactInteractions,
  fromCompact,
  newestFirst,
  type PostSummary,
  topByInteractions,
  topCompactPosts,
} from './posts.js';

/**
 * What a search summary claims about its posts, computed from the record in one place: which
 * platforms the record has, how many posts of each, the top posts and the top voices, and the measure
 * each list is ranked by. The text (searches.ts) and `structuredContent` are both written from these
 * facts, so they cannot disagree; tests/mcp/results/summary-truth.test.ts checks them against raw records.
 */
export interface SearchFacts {
  /** Every platform the record has anything for (posts, interactions, sentiment), in POST_KINDS order. */
  platforms: string[];
  /** Posts per kind, for each kind whose posts the record holds (zero where it collected none). */
  counts: Record<string, number>;
  total: number;
  /** Platforms the analysis covers whose posts it does not hold: they are only in posts_data. */
  uncounted: string[];
  /** The top posts, and what they are ranked by (`date` when no post has an interaction count). */
  top: PostSummary[];
  rankedBy: 'interactions' | 'date';
  voices: Voice[];
  voicesBy: 'interactions' | 'followers';
  /** Whether any post is a YouTube video, whose views are listed apart from its interactions. */
  hasViews: boolean;
}

/** An account among the record's posts: its posts here, their interactions, its followers if known. */
export interface Voice {
  author: string;
  platform: string;
  posts: number;
  interactions?: number;
  followers?: number;
}

/** Voices a summary shows. */
export const TOP_VOICES = 5;

/** The posts of a record: a keyword search's compact posts per kind, or summaries read from posts_data. */
export type RecordPosts =
  | { kind: 'compact'; byKind: Record<string, unknown> }
  | { kind: 'read'; posts: PostSummary[] };

/** Every platform the analysis names: its posts' kinds and the platforms of its per-platform figures. */
export function analysedPlatforms(results: Record<string, unknown>): string[] {
  const names = new Set<string>();
  for (const key of ['posts', 'interaction', 'sentiment', 'summary']) {
    const map = results[key];
    if (isRecord(map)) for (const name of Object.keys(map)) names.add(name);
  }
  return [...names].sort(byKindOrder);
}

interface Tally {
  author: string;
  platform: string;
  posts: number;
  interactions?: number;
  followers?: number;
}

function tallyVoices(
  entries: Iterable<{ author?: string; platform?: string; interactions?: number; followers?: number }>,
) {
  const byAccount = new Map<string, Tally>();
  for (const e of entries) {
    if (!e.author || !e.platform) continue;
    const key = `${e.platform}\u0000${e.author}`;
    const t = byAccount.get(key) ?? { author: e.author, platform: e.platform, posts: 0 };
    t.posts++;
    if (e.interactions !== undefined) t.interactions = (t.interactions ?? 0) + e.interactions;
    if (e.followers !== undefined) t.followers = Math.max(t.followers ?? 0, e.followers);
    byAccount.set(key, t);
  }
  const tallies = [...byAccount.values()];
  const by: SearchFacts['voicesBy'] =
    tallies.some((t) => t.interactions !== undefined) || !tallies.some((t) => t.followers !== undefined)
      ? 'interactions'
      : 'followers';
  const voices = tallies
    .sort(
      (a, b) =>
        (b[by] ?? -1) - (a[by] ?? -1) ||
        b.posts - a.posts ||
        byKindOrder(a.platform, b.platform) ||
        a.author.localeCompare(b.author),
    )
    .slice(0, TOP_VOICES)
    .map((t) => ({ ...t }) as Voice);
  return { voices, by };
}

function* compactEntries(byKind: Record<string, unknown>, followers?: ReadonlyMap<string, number>) {
  for (const [kind, list] of Object.entries(byKind)) {
    if (!Array.isArray(list)) continue;
    for (const post of list) {
      const author = isRecord(post) && typeof post.n === 'string' && post.n !== '' ? post.n : undefined;
      const known = author === undefined ? undefined : followers?.get(`${kind}\u0000${author}`);
      yield { author, platform: kind, interactions: compactInteractions(kind, post), followers: known };
    }
  }
}

/**
 * The facts of a record's posts. `analysed`: the platforms its analysis names (empty without one);
 * `top`: how many top posts to pick; `voices`: whether to name the top voices (not for one account's
 * own search); `followers`: followers by `platform\u0000handle`, for compact posts, which carry none.
 */
export function searchFacts(
  posts: RecordPosts,
  analysed: readonly string[],
  top: number,
  voices: boolean,
  followers?: ReadonlyMap<string, number>,
): SearchFacts {
  const counts: Record<string, number> = {};
  let list: PostSummary[] | null = null;
  if (posts.kind === 'compact') {
    for (const [kind, items] of Object.entries(posts.byKind))
      if (Array.isArray(items)) counts[kind] = items.length;
  } else {
    list = posts.posts;
    for (const p of list) counts[p.platform ?? 'unknown'] = (counts[p.platform ?? 'unknown'] ?? 0) + 1;
  }
  const ordered: Record<string, number> = {};
  for (const kind of Object.keys(counts).sort(byKindOrder)) ordered[kind] = counts[kind] as number;
  const total = Object.values(ordered).reduce((a, b) => a + b, 0);
  const platforms = [...new Set([...analysed, ...Object.keys(ordered)])].sort(byKindOrder);
  const uncounted = analysed.filter((p) => !(p in ordered) && p !== 'youtube_comment');

  const withCounts = list
    ? list.some((p) => p.interactions !== undefined)
    : Object.entries(posts.kind === 'compact' ? posts.byKind : {}).some(
        ([kind, items]) =>
          Array.isArray(items) && items.some((p) => compactInteractions(kind, p) !== undefined),
      );
  const rankedBy: SearchFacts['rankedBy'] = withCounts || total === 0 ? 'interactions' : 'date';
  let picked: PostSummary[];
  if (list) picked = rankedBy === 'interactions' ? topByInteractions(list, top) : newestFirst(list, top);
  else if (rankedBy === 'interactions')
    picked = topCompactPosts((posts as { byKind: Record<string, unknown> }).byKind, top);
  else {
    const byKind = (posts as { byKind: Record<string, unknown> }).byKind;
    const all = Object.entries(byKind).flatMap(([kind, items]) =>
      Array.isArray(items) ? items.map((p) => fromCompact(kind, p)) : [],
    );
    picked = newestFirst(all, top);
  }
  const tallied = voices
    ? tallyVoices(list ?? compactEntries((posts as { byKind: Record<string, unknown> }).byKind, followers))
    : { voices: [], by: 'interactions' as const };
  return {
    platforms,
    counts: ordered,
    total,
    uncounted,
    top: picked,
    rankedBy,
    voices: tallied.voices,
    voicesBy: tallied.by,
    hasViews: (ordered.youtube ?? 0) > 0,
  };
}
