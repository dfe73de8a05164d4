import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentText } from '../../../bench/figures/context.js';
import { POST_KINDS } from '../../../src/upstream/platforms.js';
import {
  type AnyClient,
  connectV2,
  type Harness,
  type Json,
  startHarness,
  textOf,
} from '../../helpers/harness.js';

/**
 * Every counted post is reachable, through the real server and sandbox over HTTP: for each search, paging
 * `all` returns exactly as many distinct posts as the summary counts, and each platform filter returns
 * exactly that platform's count (YouTube comments and threads included, which upstream's own filter
 * lacks). The summary's text says what its structuredContent says, and the default summary stays within
 * its token budget.
 */
let h: Harness;
let client: AnyClient;
let big: AnyClient;

beforeAll(async () => {
  h = await startHarness();
  client = await connectV2(h.mcpUrl, await h.token({ upstreamToken: await h.credential() }));
  // 120 posts per platform: pages end at the limit many times over.
  big = await connectV2(h.mcpUrl, await h.token({ upstreamToken: await h.credential({ synth_posts: 120 }) }));
});
afterAll(async () => {
  await client?.close();
  await big?.close();
  await h?.close();
});

async function call(c: AnyClient, name: string, args: Record<string, unknown>): Promise<Json> {
  const r = await c.callTool({ name, arguments: args });
  expect(r.isError, textOf(r)).toBeFalsy();
  return r;
}

/** Every post of one filter, page by page; the URLs seen and the total each page announced. */
async function pageAll(c: AnyClient, tool: string, args: Record<string, unknown>) {
  const urls: string[] = [];
  const kinds = new Set<string>();
  const totals = new Set<number>();
  let offset: number | undefined = 0;
  for (let pages = 0; offset !== undefined; pages++) {
    expect(pages).toBeLessThan(100);
    const r = await call(c, tool, { ...args, offset, limit: 100 });
    const page = r.structuredContent;
    totals.add(page.total);
    for (const p of page.posts) {
      urls.push(p.url);
      kinds.add(p.platform);
    }
    offset = page.next_offset;
  }
  expect(totals.size).toBe(1);
  return { urls, kinds, total: [...totals][0] as number };
}

/** The count line of a summary ("115 posts: twitter 25, …") as a map, checked against post_counts. */
function countsInText(text: string, structured: Record<string, number>): Record<string, number> {
  const line = /^([\d,]+) posts?(?:: (.*))?\.$/m.exec(text);
  expect(line, text).not.toBeNull();
  const counts: Record<string, number> = {};
  for (const pair of (line?.[2] ?? '').split(', ').filter(Boolean)) {
    const [kind, n] = pair.split(' ');
    counts[kind as string] = Number((n as string).replace(/,/g, ''));
  }
  expect(counts).toEqual(structured);
  expect(Number(line?.[1]?.replace(/,/g, ''))).toBe(Object.values(counts).reduce((a, b) => a + b, 0));
  return counts;
}

const SEARCHES: Array<[string, Record<string, unknown>, 'client' | 'big']> = [
  ['default platforms (YouTube comments)', { query: 'heat pumps' }, 'client'],
  ['threads with twitter', { query: 'rail strike', platforms: ['threads', 'twitter'] }, 'client'],
  ['facebook and weibo', { query: 'tidal energy', platforms: ['facebook', 'weibo'] }, 'client'],
  ['bluesky alone', { query: 'urban gardens', platforms: ['bluesky'] }, 'client'],
  ['LinkedIn alone', { query: 'hiring trends', platforms: ['linkedin'] }, 'client'],
  [
    'every platform, 120 posts each',
    {
      query: 'energy prices',
      platforms: ['twitter', 'reddit', 'bluesky', 'youtube', 'threads', 'facebook', 'weibo'],
    },
    'big',
  ],
  ['max_post 1', { query: 'budget', max_post: 1 }, 'client'],
];

describe('every counted post is reachable', () => {
  it.each(SEARCHES)(
    '%s: paging all and each platform returns the summary’s counts',
    async (_name, args, who) => {
      const c = who === 'big' ? big : client;
      const r = await call(c, 'submit_keyword_search', args);
      const s = r.structuredContent;
      const counts = countsInText(textOf(r), s.post_counts);
      const tool = 'get_keyword_search_posts_data';
      const all = await pageAll(c, tool, { search_id: s.search_id });
      const total = Object.values(counts).reduce((a, b) => a + b, 0);
      expect(all.total).toBe(total);
      expect(new Set(all.urls).size).toBe(total);
      expect(all.urls).toHaveLength(total);
      for (const kind of POST_KINDS) {
        const one = await pageAll(c, tool, { search_id: s.search_id, platform: kind });
        expect(one.total, kind).toBe(counts[kind] ?? 0);
        expect(new Set(one.urls).size, kind).toBe(counts[kind] ?? 0);
        if (one.urls.length) expect([...one.kinds], kind).toEqual([kind]);
      }
      // The top posts the text lists are the structured ones, each reachable by paging.
      const lines = [...textOf(r).matchAll(/^\d+\. (.*)$/gm)].map((m) => m[1] as string);
      expect(lines).toHaveLength(s.top_posts.length);
      for (const [i, post] of s.top_posts.entries()) {
        expect(lines[i]).toContain(post.url);
        expect(all.urls).toContain(post.url);
      }
    },
  );

  it('a numeric string is a search id too', async () => {
    const r = await call(client, 'submit_keyword_search', { query: 'quoted ids', platforms: ['reddit'] });
    const id = r.structuredContent.search_id;
    const again = await call(client, 'get_keyword_search', { search_id: String(id) });
    expect(again.structuredContent.search_id).toBe(id);
    const page = await call(client, 'get_keyword_search_posts_data', { search_id: ` ${id} ` });
    expect(page.structuredContent.search_id).toBe(id);
    for (const bad of ['0', '-1', '4x', '1.5', 0, 2.5]) {
      const refused = await client.callTool({ name: 'get_keyword_search', arguments: { search_id: bad } });
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toContain('search_id: must be a positive whole number');
    }
  });

  it('user searches: paging returns the summary’s count', async () => {
    for (const platform of ['twitter', 'instagram']) {
      const r = await call(client, 'submit_user_search', { query: 'examplenews', platform });
      const s = r.structuredContent;
      const counts = countsInText(textOf(r), s.post_counts);
      const all = await pageAll(client, 'get_user_search_posts_data', { search_id: s.search_id });
      expect(all.total).toBe(counts[platform]);
      expect(new Set(all.urls).size).toBe(counts[platform]);
    }
  });

  it('the default keyword search summary stays within 2,500 tokens (o200k)', async () => {
    const r = await call(client, 'submit_keyword_search', { query: 'heat pumps' });
    expect(countTokens(contentText(r))).toBeLessThanOrEqual(2_500);
  });
});
