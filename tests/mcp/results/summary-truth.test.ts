import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fromPostsData } from '../../../src/mcp/results/posts.js';
import { searchOutput } from '../../../src/mcp/results/searches.js';
import { keywordDataset } from '../../../src/sandbox/synthetic/keyword.js';
import type { Json } from '../../helpers/harness.js';

/**
 * Every claim a keyword search summary makes, checked against the raw record it summarizes, over the
 * sandbox's generator (called directly): platform mixes, empty platforms, LinkedIn alone, YouTube
 * comments, threads, huge and tiny searches. The claims: how many posts, per platform, and that each
 * is reachable in posts_data; which platforms are named (only those searched); the top posts (each
 * exists under the platform it is labelled with, ranked by the one measure the header names, none left
 * out that ranks higher); interaction totals (YouTube's are views, said so); sentiment labels;
 * coordination verdicts; the top voices; and that structuredContent says the same as the text.
 */

const SEARCHABLE = ['twitter', 'reddit', 'bluesky', 'youtube', 'threads', 'facebook', 'weibo'] as const;
const KINDS = [...SEARCHABLE, 'youtube_comment', 'instagram', 'linkedin'];
const WORDS = ['heat', 'pumps', 'tidal', 'energy', 'harbor', 'market', 'garden', 'rail', 'budget', 'vaccine'];
const WINDOW = { startMs: Date.parse('2026-11-01T00:00:00Z'), endMs: Date.parse('2026-11-08T00:00:00Z') - 1 };

const searches = fc.record({
  query: fc
    .tuple(
      fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 3 }),
      fc.constantFrom(' ', ' AND ', ' OR '),
    )
    .map(([words, joiner]) => words.join(joiner)),
  platforms: fc.oneof(
    { weight: 6, arbitrary: fc.subarray([...SEARCHABLE], { minLength: 1 }) },
    { weight: 1, arbitrary: fc.constant(['linkedin']) },
  ),
  maxPost: fc.oneof(fc.integer({ min: 1, max: 15 }), fc.constant(100), fc.constant(10_000)),
  synthPosts: fc.oneof(
    { weight: 3, arbitrary: fc.constant(null) },
    { weight: 2, arbitrary: fc.integer({ min: 0, max: 3 }) },
    { weight: 1, arbitrary: fc.integer({ min: 100, max: 400 }) },
  ),
  /** Platforms that collected nothing, whatever synthPosts says. */
  empty: fc.subarray([...SEARCHABLE]),
});

type Search = typeof searches extends fc.Arbitrary<infer T> ? T : never;

/** The one comparable measure: YouTube videos' `i` is their views, so likes + comments stand for them. */
function measureOfCompact(kind: string, p: Json): number {
  return kind === 'youtube' ? Number(p.like) + Number(p.comment) : Number(p.i);
}

function measureOfPostsData(p: Json): number | undefined {
  if (p.platform === 'linkedin') return undefined;
  if (p.platform === 'youtube') return Number(p.statistics.like_count) + Number(p.statistics.comment_count);
  return Number(p.total_interactions_count);
}

const url = (p: Json): string => p.l ?? p.post_url ?? p.url;

function build(s: Search) {
  const dataset = keywordDataset({
    query: s.query,
    platforms: s.platforms,
    window: WINDOW,
    maxPost: s.maxPost,
    synthPosts: s.synthPosts,
    emptyPlatforms: s.empty,
  } as Parameters<typeof keywordDataset>[0]);
  const record = {
    id: 42,
    query: s.query,
    status: 'finished',
    status_text: 'Search completed',
    status_percentage: 100,
    tweet_preview: dataset.preview,
    results: dataset.results ? { ...dataset.results, created_at: 'Mon, 09 Nov 2026 10:00:00 GMT' } : null,
  };
  // What the tool reads besides the record: posts_data, when the record carries no posts (LinkedIn),
  // and its twitter records' followers, which compact posts lack.
  const posts = dataset.results ? undefined : dataset.postsData.map(fromPostsData);
  const followers = new Map<string, number>();
  for (const p of dataset.postsData as Json[]) {
    if (p.platform !== 'twitter') continue;
    const key = `twitter\u0000${p.username}`;
    followers.set(key, Math.max(followers.get(key) ?? 0, p.followers_count));
  }
  const out = searchOutput({
    kind: 'keyword',
    record,
    completed: true,
    detail: 'summary',
    top: 10,
    ...(posts ? { posts } : {}),
    ...(dataset.results && followers.size ? { followers } : {}),
  });
  return { dataset, record, out };
}

/** Posts of the record as [kind, raw post, measure, url], whichever body carries them. */
function postsOf(dataset: ReturnType<typeof keywordDataset>) {
  if (dataset.results) {
    const byKind = dataset.results.posts as Record<string, Json[]>;
    return Object.entries(byKind).flatMap(([kind, list]) =>
      list.map((p) => ({ kind, measure: measureOfCompact(kind, p) as number | undefined, url: url(p), p })),
    );
  }
  return dataset.postsData.map((p: Json) => ({
    kind: String(p.platform),
    measure: measureOfPostsData(p),
    url: url(p),
    p,
  }));
}

/** The number a phrase starts with: "5,938 interactions" → 5938. */
const int = (text: string) => Number(/^-?[\d,]+/.exec(text)?.[0]?.replace(/,/g, '') ?? Number.NaN);

function claims(s: Search) {
  const { dataset, out } = build(s);
  const text = out.text;
  const data = out.data as Json;
  const all = postsOf(dataset);
  const searched = new Set<string>(s.platforms);
  if (searched.has('youtube')) searched.add('youtube_comment');

  // Every counted post is in posts_data, under the platform it is counted for.
  const kindOfPostsData = (p: Json) => String(p.platform);
  const reachable = new Map<string, number>();
  for (const p of dataset.postsData) {
    const kind = kindOfPostsData(p);
    reachable.set(kind, (reachable.get(kind) ?? 0) + 1);
  }

  // "N posts: twitter 25, reddit 0, …"
  const countLine = /^([\d,]+) posts?(?:: (.*))?\.$/m.exec(text);
  expect(countLine, text).not.toBeNull();
  const total = int(countLine?.[1] ?? '');
  const counted = Object.fromEntries(
    (countLine?.[2] ?? '')
      .split(', ')
      .filter(Boolean)
      .map((pair) => {
        const [kind, n] = pair.split(' ');
        return [kind as string, int(n ?? '')];
      }),
  );
  expect(total).toBe(all.length);
  expect(total).toBe(dataset.postsData.length);
  expect(Object.values(counted).reduce((a, b) => a + b, 0)).toBe(total);
  for (const [kind, n] of Object.entries(counted)) {
    expect(searched.has(kind) || (kind === 'linkedin' && s.platforms[0] === 'linkedin'), kind).toBe(true);
    expect(n, kind).toBe(all.filter((p) => p.kind === kind).length);
    expect(reachable.get(kind) ?? 0, `${kind} in posts_data`).toBe(n);
  }
  for (const kind of reachable.keys()) expect(counted[kind], `${kind} counted`).toBe(reachable.get(kind));
  expect(data.post_counts).toEqual(counted);

  // No platform that was not searched is named anywhere in the text (URLs and post text aside).
  const words = text
    .replace(/https?:\/\/\S+/g, '')
    .replace(/ — .*$/gm, '')
    .toLowerCase();
  for (const kind of KINDS) {
    if (searched.has(kind) || (kind === 'linkedin' && s.platforms[0] === 'linkedin')) continue;
    expect(words, `names ${kind}`).not.toMatch(new RegExp(`\\b${kind}\\b`));
  }

  // The top posts: the header says the measure; each line is a real post, labelled with its platform,
  // in order of that measure, and nothing left out ranks higher than the last one shown.
  const header = /^Top (\d+) of ([\d,]+) posts(?: by (interactions)|, (newest first))\b.*:$/m.exec(text);
  const lines = [...text.matchAll(/^(\d+)\. (.*)$/gm)].map((m) => m[2] as string);
  if (all.length === 0) {
    expect(header).toBeNull();
    expect(lines).toEqual([]);
  } else {
    expect(header, text).not.toBeNull();
    expect(Number(header?.[1])).toBe(Math.min(10, all.length));
    expect(int(header?.[2] ?? '')).toBe(all.length);
    expect(lines).toHaveLength(Math.min(10, all.length));
    const shown = lines.map((line) => {
      const [meta] = line.split(' — ');
      const parts = (meta ?? '').split(' · ');
      const link = parts.find((x) => /^https?:\/\//.test(x));
      const post = all.find((p) => p.url === link);
      expect(post, line).toBeDefined();
      expect(parts[0], line).toBe(post?.kind);
      const interactions = parts.find((x) => / interactions$/.test(x));
      if (post?.measure === undefined) expect(interactions, line).toBeUndefined();
      else expect(int(interactions ?? ''), line).toBe(post.measure);
      const views = parts.find((x) => / views$/.test(x));
      if (post?.kind === 'youtube') expect(int(views ?? ''), line).toBe(Number(post.p.view ?? post.p.i));
      else expect(views, line).toBeUndefined();
      return post as (typeof all)[number];
    });
    expect(new Set(shown.map((p) => p.url)).size).toBe(shown.length);
    if (header?.[3] === 'interactions') {
      const measures = shown.map((p) => p.measure ?? -1);
      for (let i = 1; i < measures.length; i++)
        expect(measures[i]).toBeLessThanOrEqual(measures[i - 1] as number);
      const last = measures[measures.length - 1] as number;
      const left = all.filter((p) => !shown.includes(p)).map((p) => p.measure ?? -1);
      for (const m of left) expect(m).toBeLessThanOrEqual(last);
    }
    expect((data.top_posts as Json[]).map((p) => p.url)).toEqual(shown.map((p) => p.url));
  }

  voicesOf(text, data, all, dataset.postsData as Json[]);
  const results = dataset.results as Json;
  if (!results) return;

  // Interaction totals as upstream gives them; YouTube's are said to be views.
  const interactions = /^Interactions: (.*)\.$/m.exec(text);
  if (interactions) {
    for (const part of (interactions[1] ?? '').split(/[,;] /)) {
      const views = /^youtube views ([\d,]+)$/.exec(part);
      if (views) {
        expect(int(views[1] ?? '')).toBe(results.interaction.youtube);
        continue;
      }
      const [kind, n] = part.split(' ');
      expect(kind, part).not.toBe('youtube');
      expect(int(n ?? ''), part).toBe(results.interaction[kind as string]);
    }
  }

  // Sentiment labels as upstream gives them.
  const sentiment = /^Sentiment: (.*)\.$/m.exec(text);
  expect(sentiment, text).not.toBeNull();
  for (const part of (sentiment?.[1] ?? '').split(', ')) {
    const [kind, label] = part.split(' ');
    expect(results.sentiment[kind as string], part).toBe(label);
  }

  // Coordination verdicts, for searched platforms only.
  const coordination = /^Coordination: (.*)\.$/m.exec(text);
  const ioc = results.indicator_of_coordination;
  expect(coordination?.[1]).toContain(`score ${ioc.coordination_score}/100`);
  const dominate = /a few accounts dominate on ([^;(]*?)(?: \(not on ([^)]*)\))?(?:;|$)/.exec(
    coordination?.[1] ?? '',
  );
  if (dominate) {
    const flagged = (dominate[1] ?? '').split(', ').filter((x) => x !== 'no platform');
    const clear = (dominate[2] ?? '').split(', ').filter(Boolean);
    for (const kind of flagged) expect(ioc[`frequent_posters_${kind}`]?.verdict, kind).toBe(true);
    for (const kind of clear) expect(ioc[`frequent_posters_${kind}`]?.verdict, kind).toBe(false);
  }
}

function voicesOf(text: string, data: Json, all: ReturnType<typeof postsOf>, postsData: Json[]) {
  // Top voices: handle, platform, posts, interactions and followers as the record has them, ranked by
  // the measure the header names.
  const voicesHeader = /^Top voices by (interactions|followers)\b/m.exec(text);
  const voices = [
    ...text.matchAll(
      /^- (.+) \((\w+)\): ([\d,]+) posts?(?:, ([\d,]+) interactions)?(?:, ([\d,]+) followers)?$/gm,
    ),
  ];
  let previous = Number.POSITIVE_INFINITY;
  for (const [, label, kind, postCount, sum, followers] of voices) {
    const handle = (label ?? '').replace(/^@/, '');
    const theirs = all.filter((p) => p.kind === kind && (p.p.n ?? p.p.username ?? p.p.user_name) === handle);
    expect(theirs.length, `${handle} ${kind}`).toBe(int(postCount ?? ''));
    const measured = theirs.filter((p) => p.measure !== undefined);
    if (sum === undefined) expect(measured).toEqual([]);
    else expect(measured.reduce((a, p) => a + (p.measure as number), 0)).toBe(int(sum));
    // Followers as the record gives them: a posts_data record's own, or (compact posts have none) the
    // twitter posts_data records of the same account.
    const known = [
      ...theirs.map((p) => p.p.followers_count ?? p.p.user_follower_count),
      ...(kind === 'twitter'
        ? postsData
            .filter((p) => p.platform === 'twitter' && p.username === handle)
            .map((p) => p.followers_count)
        : []),
    ].filter((f) => typeof f === 'number');

    if (followers === undefined) expect(known).toEqual([]);
    else expect(Math.max(...known)).toBe(int(followers));
    const ranked = int((voicesHeader?.[1] === 'followers' ? followers : sum) ?? '-1');
    expect(ranked).toBeLessThanOrEqual(previous);
    previous = ranked;
  }
  if (all.some((p) => p.p.n ?? p.p.username ?? p.p.user_name)) expect(voicesHeader, text).not.toBeNull();
  expect((data.top_voices ?? []).length).toBe(voices.length);
}

describe('a keyword search summary tells the truth about its record', () => {
  it('for any platform mix, size and emptiness (fast-check over the sandbox generator)', () => {
    fc.assert(fc.property(searches, claims), { numRuns: 120 });
  });

  it('for the cases that broke before: YouTube comments, threads with twitter, facebook and weibo, bluesky alone, LinkedIn alone', () => {
    const cases: Search[] = [
      {
        query: 'heat pumps',
        platforms: ['twitter', 'reddit', 'bluesky', 'youtube'],
        maxPost: 100,
        synthPosts: null,
        empty: [],
      },
      { query: 'rail budget', platforms: ['threads', 'twitter'], maxPost: 100, synthPosts: null, empty: [] },
      { query: 'tidal energy', platforms: ['facebook', 'weibo'], maxPost: 100, synthPosts: null, empty: [] },
      { query: 'garden', platforms: ['bluesky'], maxPost: 100, synthPosts: null, empty: [] },
      { query: 'market', platforms: ['linkedin'], maxPost: 100, synthPosts: null, empty: [] },
      {
        query: 'harbor',
        platforms: ['twitter', 'youtube'],
        maxPost: 100,
        synthPosts: null,
        empty: ['twitter'],
      },
    ];
    for (const c of cases) claims(c);
  });
  it('a running keyword search names each preview post platform from its record, never a view count as interactions', () => {
    const dataset = keywordDataset({
      query: 'heat pumps',
      platforms: ['twitter', 'youtube', 'reddit'],
      window: WINDOW,
      maxPost: 100,
    });
    const out = searchOutput({
      kind: 'keyword',
      record: {
        id: 7,
        query: 'heat pumps',
        status: 'started',
        status_percentage: 40,
        tweet_preview: dataset.preview,
      },
      completed: false,
      detail: 'summary',
      top: 10,
    });
    const lines = [...out.text.matchAll(/^\d+\. (.*)$/gm)].map((m) => m[1] as string);
    expect(lines).toHaveLength(dataset.preview.length);
    expect(dataset.preview.some((p: Json) => String(p.l).includes('/youtube/'))).toBe(true);
    const byUrl = new Map(dataset.postsData.map((p: Json) => [p.post_url, p]));
    for (const [i, p] of (dataset.preview as Json[]).entries()) {
      const kind = String(byUrl.get(p.l)?.platform);
      expect(lines[i]).toMatch(new RegExp(`^${kind} · `));
      if (kind === 'youtube')
        expect(lines[i]).toContain(` · ${Number(p.view).toLocaleString('en-US')} views`);
    }
    expect(out.text).not.toMatch(/ by interactions/);
  });
});
