import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { clean, clip } from '../../../src/mcp/results/fence.js';
import { dropNulls, isRecord, num } from '../../../src/mcp/results/format.js';
import { fromCompact, topByInteractions, topCompactPosts } from '../../../src/mcp/results/posts.js';

/**
 * The result writers' hot helpers take shortcuts for speed; these hold them to what they replaced:
 * `num` to Intl's en-US output, `clip` to cleaning (results/fence.ts), collapsing all whitespace,
 * trimming and cutting at `max` code points, for any text; `dropNulls` to a full copy without nulls;
 * the top compact posts to the top of all of them summarized.
 */
const INTEGER = new Intl.NumberFormat('en-US');
const DECIMAL = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });

function numByIntl(value: unknown): string {
  const n = typeof value === 'number' ? value : typeof value === 'string' ? Number(value) : Number.NaN;
  if (!Number.isFinite(n)) return '?';
  return Number.isInteger(n) ? INTEGER.format(n) : DECIMAL.format(n);
}

function clipInFull(value: unknown, max = 280): string {
  const text = clean(String(value ?? ''))
    .replace(/\s+/g, ' ')
    .trim();
  const chars = Array.from(text);
  return chars.length <= max
    ? text
    : `${clean(
        chars
          .slice(0, max - 1)
          .join('')
          .trimEnd(),
      )}…`;
}

describe('num', () => {
  it('writes every number as Intl en-US does', () => {
    const edges = [0, -0, 1, -1, 999, 1000, -1000, 999_999, 1_000_000, 24_017, -24_017, 2 ** 53 - 1];
    for (const n of [...edges, -(2 ** 53) + 1, 2 ** 53, 1e21, -1e21, 1.5, -0.004, 12.345, Number.NaN]) {
      expect(num(n), String(n)).toBe(numByIntl(n));
    }
    for (const text of ['12', '-7', '1e3', ' 42 ', '', 'x', '0x10', '3.14159']) {
      expect(num(text), text).toBe(numByIntl(text));
    }
    fc.assert(
      fc.property(fc.oneof(fc.integer({ min: -(2 ** 53) + 1, max: 2 ** 53 - 1 }), fc.double()), (n) => {
        expect(num(n)).toBe(numByIntl(n));
      }),
      { numRuns: 5_000 },
    );
  });
});

describe('clip', () => {
  const spaces = fc.constantFrom(' ', '  ', '\n', '\t', '\u00a0', '\u2028', '\ufeff', '\r\n', ' \u3000');
  const pieces = fc.oneof(
    fc.string(),
    fc.string({ unit: 'grapheme' }),
    spaces,
    fc.constantFrom('<untrusted-content>', '</UNTRUSTED-content', '<untrusted', '😀', 'é', '‹'),
  );
  const texts = fc.array(pieces, { maxLength: 40 }).map((parts) => parts.join(''));

  it('gives what collapsing, defusing, trimming and cutting give, for any text and length', () => {
    fc.assert(
      fc.property(texts, fc.integer({ min: 1, max: 60 }), (text, max) => {
        expect(clip(text, max)).toBe(clipInFull(text, max));
      }),
      { numRuns: 5_000 },
    );
    for (const value of [undefined, null, 42, true, { a: 1 }]) expect(clip(value)).toBe(clipInFull(value));
  });
});

function dropNullsByCopy(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(dropNullsByCopy);
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (v !== null && v !== undefined) out[k] = dropNullsByCopy(v);
  return out;
}

describe('dropNulls', () => {
  it('gives what a full copy without nulls gives, and leaves its input as it was', () => {
    const json = fc.jsonValue().map((v) => JSON.parse(JSON.stringify(v)) as unknown);
    const values = fc.oneof(
      json,
      fc.anything({ withNullPrototype: false }),
      fc.constant(JSON.parse('{"__proto__":{"a":null},"b":[null,{"c":null}]}')),
    );
    fc.assert(
      fc.property(values, (value) => {
        const before = JSON.stringify(value);
        const kept = dropNulls(value);
        expect(JSON.stringify(kept)).toBe(JSON.stringify(dropNullsByCopy(value)));
        expect(kept).toEqual(dropNullsByCopy(value));
        expect(JSON.stringify(value)).toBe(before);
      }),
      { numRuns: 3_000 },
    );
  });

  it('shares what has no null in it', () => {
    const posts = [{ text: 'a' }, { text: 'b' }];
    const kept = dropNulls({ posts, gone: null }) as { posts: unknown };
    expect(kept.posts).toBe(posts);
  });
});

describe('topCompactPosts', () => {
  it('picks what topByInteractions picks from every post summarized, for any posts per platform', () => {
    const interactions = fc.oneof(
      fc.integer({ min: -5, max: 50 }),
      fc.constantFrom('12', ' 7 ', 'x', null, undefined),
    );
    const post = fc.oneof(
      {
        arbitrary: fc.record({ d: fc.string(), n: fc.string(), i: interactions }, { requiredKeys: ['d'] }),
        weight: 8,
      },
      { arbitrary: fc.anything(), weight: 1 },
    );
    const map = fc.dictionary(
      fc.constantFrom('twitter', 'reddit', 'youtube', 'bluesky', 'x', '__proto__'),
      fc.oneof(
        { arbitrary: fc.array(post, { maxLength: 30 }), weight: 9 },
        { arbitrary: fc.anything(), weight: 1 },
      ),
    );
    fc.assert(
      fc.property(map, fc.integer({ min: 0, max: 15 }), (byPlatform, n) => {
        const all = Object.entries(byPlatform).flatMap(([platform, list]) =>
          Array.isArray(list) ? list.map((p) => fromCompact(platform, p)) : [],
        );
        expect(topCompactPosts(byPlatform, n)).toEqual(topByInteractions(all, n));
      }),
      { numRuns: 3_000 },
    );
  });
});
