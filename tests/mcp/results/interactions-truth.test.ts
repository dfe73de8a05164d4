import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fromCompact, fromPostsData, type PostSummary } from '../../../src/mcp/results/posts.js';
import { searchOutput } from '../../../src/mcp/results/searches.js';
import { keywordDataset } from '../../../src/sandbox/synthetic/keyword.js';
import { userDataset } from '../../../src/sandbox/synthetic/user.js';
import type { Json } from '../../helpers/harness.js';

/**
 * The interaction figures a model reads while a search runs (its preview) and once it finished (its
 * lists), checked against the emulator's own records over generated searches: every preview post is
 * labelled with the platform of its posts_data record, its interactions are that record's (a YouTube
 * video's likes + comments, its views apart as views, never the views as interactions), and the
 * preview, the finished search's compact posts and its posts_data give one post the same figures.
 */

const SEARCHABLE = ['twitter', 'reddit', 'bluesky', 'youtube', 'threads', 'facebook', 'weibo'] as const;
const WORDS = ['heat', 'pumps', 'tidal', 'energy', 'harbor', 'market', 'garden', 'rail', 'budget', 'vaccine'];
const WINDOW = { startMs: Date.parse('2026-11-01T00:00:00Z'), endMs: Date.parse('2026-11-08T00:00:00Z') - 1 };

const keywordSearches = fc.record({
  kind: fc.constant('keyword' as const),
  query: fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 3 }).map((w) => w.join(' ')),
  platforms: fc.subarray([...SEARCHABLE], { minLength: 1 }),
  maxPost: fc.oneof(fc.integer({ min: 1, max: 15 }), fc.constant(100)),
  synthPosts: fc.oneof(fc.constant(null), fc.integer({ min: 1, max: 40 })),
  /** How far the search is: the preview fills as it runs. */
  fraction: fc.double({ min: 0.01, max: 1, noNaN: true }),
});

const userSearches = fc.record({
  kind: fc.constant('user' as const),
  query: fc.constantFrom('examplenews', 'harbor_watch', 'tidal.energy', 'rail_budget'),
  platforms: fc.constantFrom(['twitter'], ['facebook'], ['instagram']),
  maxPost: fc.oneof(fc.integer({ min: 1, max: 15 }), fc.constant(100)),
  synthPosts: fc.oneof(fc.constant(null), fc.integer({ min: 1, max: 40 })),
  fraction: fc.double({ min: 0.01, max: 1, noNaN: true }),
});

type Search =
  typeof keywordSearches extends fc.Arbitrary<infer K>
    ? K | (typeof userSearches extends fc.Arbitrary<infer U> ? U : never)
    : never;

/** The truth of one post, from its posts_data record: its platform, interactions and views. */
function truthOf(record: Json): { platform: string; interactions: number; views?: number } {
  const platform = String(record.platform);
  const isVideo = platform === 'youtube' && !/[?&]lc=/.test(String(record.post_url));
  if (isVideo)
    return {
      platform,
      interactions: Number(record.statistics.like_count) + Number(record.statistics.comment_count),
      views: Number(record.statistics.view_count),
    };
  return {
    platform: isVideoComment(record) ? 'youtube_comment' : platform,
    interactions: Number(record.total_interactions_count),
  };
}

function isVideoComment(record: Json): boolean {
  return record.platform === 'youtube' && /[?&]lc=/.test(String(record.post_url));
}

/** The number a line says before `label`: "1,234 interactions" → 1234. */
function figure(line: string, label: string): number | undefined {
  const m = new RegExp(`([\\d,]+) ${label}\\b`).exec(line);
  return m?.[1] ? Number(m[1].replace(/,/g, '')) : undefined;
}

function build(s: Search) {
  const dataset =
    s.kind === 'keyword'
      ? keywordDataset({
          query: s.query,
          platforms: s.platforms,
          window: WINDOW,
          maxPost: s.maxPost,
          synthPosts: s.synthPosts,
        })
      : userDataset({
          username: s.query,
          platform: s.platforms[0] as 'twitter',
          window: WINDOW,
          maxPost: s.maxPost,
          synthPosts: s.synthPosts,
        });
  // The emulator's own slicing of the preview while started (search-views.ts:previewFor).
  const preview = dataset.preview.slice(0, Math.ceil(dataset.preview.length * s.fraction));
  const record = {
    id: 7,
    query: s.query,
    status: 'started',
    status_text: 'Collecting posts',
    status_percentage: Math.floor(s.fraction * 99),
    tweet_preview: preview,
    results: null,
    ...(s.kind === 'user' ? { platform: s.platforms[0] } : {}),
  };
  const running = searchOutput({ kind: s.kind, record, completed: false, detail: 'summary', top: 10 });
  const byUrl = new Map<string, Json>(dataset.postsData.map((p: Json) => [String(p.post_url), p]));
  return { dataset, preview, running, byUrl };
}

function checkPreview(s: Search) {
  const { preview, running, byUrl } = build(s);
  const posts = running.data.preview_posts as PostSummary[];
  expect(posts).toHaveLength(preview.length);
  const lines = running.text.split('\n').filter((l) => /^\d+\. /.test(l));
  expect(lines).toHaveLength(preview.length);
  posts.forEach((post, i) => {
    const raw = byUrl.get(String(post.url));
    expect(raw, `preview post ${post.url} is in posts_data`).toBeDefined();
    const truth = truthOf(raw as Json);
    expect(post.platform).toBe(truth.platform);
    expect(post.interactions).toBe(truth.interactions);
    expect(post.views).toBe(truth.views);
    const line = lines[i] as string;
    // A user search's lines leave its one platform to the headline; a keyword search's name it.
    if (s.kind === 'keyword') expect(line).toMatch(new RegExp(`^${i + 1}\\. ${truth.platform} · `));
    expect(figure(line, 'interactions')).toBe(truth.interactions);
    expect(figure(line, 'views')).toBe(truth.views);
  });
}

describe('interaction figures against the emulator records', () => {
  it('previews of running keyword and user searches: platform, interactions, views', () => {
    fc.assert(fc.property(fc.oneof(keywordSearches, userSearches), checkPreview), { numRuns: 150 });
  });

  it('one post, one figure: preview, finished list and posts_data agree', () => {
    fc.assert(
      fc.property(keywordSearches, (s: Search) => {
        const { dataset, preview, byUrl } = build(s);
        const compact = new Map<string, PostSummary>();
        for (const [kind, list] of Object.entries((dataset.results?.posts ?? {}) as Record<string, Json[]>))
          for (const p of list) compact.set(String(p.l), fromCompact(kind, p));
        for (const p of preview) {
          const shown = fromCompact(undefined, p);
          const listed = compact.get(String(p.l));
          const paged = fromPostsData(byUrl.get(String(p.l)));
          expect(listed, 'a preview post is in the finished results').toBeDefined();
          for (const other of [listed, paged]) {
            expect(shown.platform).toBe(other?.platform);
            expect(shown.interactions).toBe(other?.interactions);
            expect(shown.views).toBe(other?.views);
          }
        }
      }),
      { numRuns: 100 },
    );
  });
});
