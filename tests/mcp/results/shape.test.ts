import { describe, expect, it } from 'vitest';
import { pageWithin } from '../../../src/mcp/results/paging.js';
import { capResult, describeTruncation } from '../../../src/mcp/results/shape.js';
import { estimateTokens, withinTokens } from '../../../src/mcp/results/tokens.js';

const tokens = (value: unknown) => estimateTokens(JSON.stringify(value));

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
    const shaped = capResult(data, 5_000);
    expect(tokens(shaped.data)).toBeLessThanOrEqual(5_000);
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
      `Answer cut to fit 10,000 tokens (results.posts.twitter: ${kept} of 200 items kept).`,
    );
  });

  it('trims first the arrays whose rest can be read elsewhere, and says where', () => {
    const data = {
      posts: {
        paged: Array.from({ length: 40 }, (_, i) => post(i)),
        comments: Array.from({ length: 60 }, (_, i) => post(i)),
      },
    };
    const restOf = (t: { path: string; kept: number }) =>
      t.path === 'posts.paged' ? `the posts tool, offset ${t.kept}` : null;
    const shaped = capResult(data, 3_000, restOf);
    expect(tokens(shaped.data)).toBeLessThanOrEqual(3_000);
    const byPath = Object.fromEntries(shaped.truncated.map((t) => [t.path, t]));
    expect(byPath['posts.paged']).toMatchObject({ kept: 0, total: 40, rest: 'the posts tool, offset 0' });
    // The comments, which nothing else serves, lost only what still did not fit.
    expect(byPath['posts.comments']?.kept).toBeGreaterThan(20);
    expect(byPath['posts.comments']?.rest).toBeUndefined();
  });

  it('cuts a single huge string when no array is to blame', () => {
    const shaped = capResult({ report_markdown: 'y'.repeat(50_000), id: 'r' }, 5_000);
    expect(tokens(shaped.data)).toBeLessThanOrEqual(5_000);
    expect(shaped.truncated[0]).toMatchObject({ path: 'report_markdown', kind: 'string', total: 50_000 });
    expect(shaped.data.id).toBe('r');
  });
});

describe('pageWithin', () => {
  it('pages with offset and limit, and says where the next page starts', () => {
    const items = Array.from({ length: 7 }, (_, i) => i);
    expect(pageWithin(items, 0, 3, 100_000)).toMatchObject({
      total: 7,
      returned: 3,
      next_offset: 3,
      items: [0, 1, 2],
    });
    const last = pageWithin(items, 6, 3, 100_000);
    expect(last).toMatchObject({ returned: 1, items: [6] });
    expect(last.next_offset).toBeUndefined();
    expect(pageWithin(items, 10, 3, 100_000)).toMatchObject({ returned: 0, items: [] });
  });

  it('ends a page where the token budget ends, and the next page starts there', () => {
    const items = Array.from({ length: 50 }, (_, i) => ({ i, text: 'x'.repeat(500) }));
    const first = pageWithin(items, 0, 50, 2_500);
    expect(first.cutBySize).toBe(true);
    expect(first.returned).toBeGreaterThan(5);
    expect(first.returned).toBeLessThan(50);
    expect(first.next_offset).toBe(first.returned);
    expect(tokens(first.items)).toBeLessThan(2_500);
    const seen = new Set<number>();
    let offset: number | undefined = 0;
    while (offset !== undefined) {
      const page: { items: Array<{ i: number }>; next_offset?: number } = pageWithin(
        items,
        offset,
        50,
        2_500,
      );
      for (const item of page.items) seen.add(item.i);
      offset = page.next_offset;
    }
    expect(seen.size).toBe(50);
  });

  it('always holds one item, however large, so paging moves on', () => {
    const items = [{ text: 'y'.repeat(20_000) }, { text: 'z' }];
    expect(pageWithin(items, 0, 10, 1_000)).toMatchObject({ returned: 1, next_offset: 1 });
  });
});

describe('withinTokens', () => {
  // Answers far below the budget are settled by their length: the decision must be the count's, also
  // where the length bound is tight (emoji: three tokens for two characters) or the count is far lower.
  it('decides as the count does, for texts at the most and the fewest tokens per character', () => {
    const texts = [
      '😀'.repeat(400),
      'x'.repeat(1_200),
      '1'.repeat(900),
      '{"a":[1,2]}'.repeat(80),
      'ab cd '.repeat(150),
    ];
    for (const text of texts) {
      const count = estimateTokens(text);
      for (const max of [0, count - 1, count, count + 1, text.length, Math.ceil(text.length * 1.5)]) {
        expect(withinTokens(text, max), `${text.slice(0, 12)}… at ${max}`).toBe(count <= max);
      }
    }
  });
});
