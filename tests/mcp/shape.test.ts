import { describe, expect, it } from 'vitest';
import { capResult, describeTruncation } from '../../src/mcp/shape.js';
import { pagePosts } from '../../src/mcp/tools/common.js';

const post = (i: number) => ({ text: `post ${i} ${'x'.repeat(200)}`, n: `author_${i}` });

describe('capResult', () => {
  it('leaves a small result untouched (same object)', () => {
    const data = { a: [1, 2, 3] };
    const shaped = capResult(data, 1_000);
    expect(shaped.data).toBe(data);
    expect(shaped.truncated).toEqual([]);
  });

  it('trims the longest arrays first and reports kept/total per path', () => {
    const data = {
      id: 1,
      results: {
        posts: { twitter: Array.from({ length: 200 }, (_, i) => post(i)), reddit: [post(1), post(2)] },
      },
      small: [1, 2, 3],
    };
    const shaped = capResult(data, 10_000);
    expect(Buffer.byteLength(JSON.stringify(shaped.data))).toBeLessThanOrEqual(10_000);
    expect(shaped.truncated).toEqual([
      { path: 'results.posts.twitter', kind: 'array', kept: expect.any(Number), total: 200 },
    ]);
    const kept = shaped.truncated[0]?.kept ?? 0;
    expect(kept).toBeGreaterThan(10);
    const trimmed = shaped.data.results as { posts: { twitter: unknown[]; reddit: unknown[] } };
    expect(trimmed.posts.twitter).toEqual(data.results.posts.twitter.slice(0, kept));
    expect(trimmed.posts.reddit).toHaveLength(2);
    expect(shaped.data.small).toEqual([1, 2, 3]);
    expect(shaped.data._truncated).toEqual(shaped.truncated);
    // The input is not mutated.
    expect(data.results.posts.twitter).toHaveLength(200);
    expect(describeTruncation(shaped.truncated, 10_000)).toBe(
      `Result truncated to fit 10 KB (results.posts.twitter: ${kept} of 200 items kept).`,
    );
  });

  it('cuts a single huge string when no array is to blame', () => {
    const shaped = capResult({ report_markdown: 'y'.repeat(50_000), id: 'r' }, 5_000);
    expect(Buffer.byteLength(JSON.stringify(shaped.data))).toBeLessThanOrEqual(5_000);
    expect(shaped.truncated[0]).toMatchObject({ path: 'report_markdown', kind: 'string', total: 50_000 });
    expect(shaped.data.id).toBe('r');
  });
});

describe('pagePosts', () => {
  it('pages with offset and limit, and says where the next page starts', () => {
    const posts = Array.from({ length: 7 }, (_, i) => i);
    expect(pagePosts(posts, 0, 3)).toMatchObject({ total: 7, returned: 3, next_offset: 3, posts: [0, 1, 2] });
    expect(pagePosts(posts, 6, 3)).toMatchObject({ returned: 1, next_offset: null, posts: [6] });
    expect(pagePosts(posts, 10, 3)).toMatchObject({ returned: 0, next_offset: null, posts: [] });
  });
});
