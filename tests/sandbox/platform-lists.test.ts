import { describe, expect, it } from 'vitest';
import { toolByName } from '../../src/mcp/tools/index.js';
import * as sandbox from '../../src/sandbox/constants.js';
import { keywordDataset } from '../../src/sandbox/synthetic/keyword.js';
import { userDataset } from '../../src/sandbox/synthetic/user.js';
import * as gateway from '../../src/upstream/platforms.js';
import type { Json } from '../helpers/harness.js';

/**
 * One platform list per purpose. The gateway defines each once (src/upstream/platforms.ts) and its tool
 * schemas take them from there; the sandbox, the other side of the wire, keeps its own copy written from
 * the API description (it shares no code with the gateway). These hold the two sides to each other, and
 * to what the sandbox's generator actually produces.
 */
const WINDOW = { startMs: Date.parse('2026-11-01T00:00:00Z'), endMs: Date.parse('2026-11-08T00:00:00Z') - 1 };

function enumOf(tool: string, path: string[]): unknown {
  const def = toolByName(tool);
  let schema = def?.input['~standard'].jsonSchema.input({ target: 'draft-2020-12' }) as Json;
  for (const key of path) schema = schema[key];
  return schema.enum;
}

describe('platform lists', () => {
  it('the sandbox and the gateway agree on every list', () => {
    expect(sandbox.KEYWORD_PLATFORMS).toEqual(gateway.KEYWORD_SEARCH_PLATFORMS);
    expect(sandbox.DEFAULT_KEYWORD_PLATFORMS).toEqual(gateway.DEFAULT_KEYWORD_PLATFORMS);
    expect(sandbox.USER_PLATFORMS).toEqual(gateway.USER_SEARCH_PLATFORMS);
    expect(sandbox.POSTS_DATA_PLATFORMS).toEqual(['all', ...gateway.UPSTREAM_POSTS_FILTERS]);
    expect(sandbox.TOPIC_TREE_PLATFORMS).toEqual(['all', ...gateway.TOPIC_TREE_PLATFORMS]);
    expect(new Set(sandbox.POST_KINDS)).toEqual(new Set(gateway.POST_KINDS));
  });

  it('the sandbox produces every kind of post, each under its own name in posts_data and results.posts', () => {
    const keyword = keywordDataset({
      query: 'every kind',
      platforms: sandbox.KEYWORD_PLATFORMS.filter((p) => p !== 'linkedin'),
      window: WINDOW,
      maxPost: 100,
    });
    const linkedin = keywordDataset({
      query: 'every kind',
      platforms: ['linkedin'],
      window: WINDOW,
      maxPost: 100,
    });
    const users = gateway.USER_SEARCH_PLATFORMS.map((platform) =>
      userDataset({ username: 'someone', platform, window: WINDOW, maxPost: 100 }),
    );
    const records = [...keyword.postsData, ...linkedin.postsData, ...users.flatMap((u) => u.postsData)];
    expect(new Set(records.map((p) => gateway.postKindOf(p)))).toEqual(new Set(gateway.POST_KINDS));
    for (const p of records) expect(gateway.postKindOf(p)).toBe(p.platform);
    expect(Object.keys(keyword.results?.posts as Json).sort()).toEqual(
      gateway.POST_KINDS.filter((k) => !['instagram', 'linkedin'].includes(k)).sort(),
    );
  });

  it('the tools list exactly these', () => {
    expect(enumOf('submit_keyword_search', ['properties', 'platforms', 'items'])).toEqual(
      gateway.KEYWORD_SEARCH_PLATFORMS,
    );
    expect(enumOf('submit_user_search', ['properties', 'platform'])).toEqual(gateway.USER_SEARCH_PLATFORMS);
    expect(enumOf('get_keyword_search_posts_data', ['properties', 'platform'])).toEqual([
      'all',
      ...gateway.POST_KINDS,
    ]);
    expect(enumOf('get_keyword_search_topic_tree', ['properties', 'platform'])).toEqual(
      gateway.TOPIC_TREE_PLATFORMS,
    );
  });

  it('a YouTube record with a comment link is a comment, whatever platform upstream gives it', () => {
    expect(gateway.postKindOf({ platform: 'youtube', post_url: 'https://y.example/watch?v=a&lc=b' })).toBe(
      'youtube_comment',
    );
    expect(gateway.postKindOf({ platform: 'youtube', post_url: 'https://y.example/watch?v=a' })).toBe(
      'youtube',
    );
    expect(gateway.postKindOf({ platform: 'youtube_comment' })).toBe('youtube_comment');
    expect(gateway.postKindOf({})).toBe('unknown');
    expect(gateway.upstreamPostsFilter('threads')).toBeUndefined();
    expect(gateway.upstreamPostsFilter('youtube_comment')).toBeUndefined();
    expect(gateway.upstreamPostsFilter('facebook')).toBe('facebook');
  });
});
