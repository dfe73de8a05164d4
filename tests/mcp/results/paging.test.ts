import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { estimateTokens } from '../../../src/mcp/results/tokens.js';
import {
  type AnyClient,
  connectV1,
  connectV2,
  type Harness,
  type Json,
  jsonIn,
  startHarness,
  textOf,
} from '../../helpers/harness.js';

/**
 * Every post reachable: a 400-post search, paged by the posts tools, gives every post the
 * sandbox holds exactly once, whether pages end at `limit` or at the token budget.
 */
const MAX_RESULT_TOKENS = 5_000;

let h: Harness;
let upstreamToken: string;
let searchId: number;
let sandboxPosts: Json[];

beforeAll(async () => {
  h = await startHarness({ maxResultTokens: MAX_RESULT_TOKENS });
  // 100 posts per platform: four platforms hold 400, as a real default search can.
  upstreamToken = await h.credential({ synth_posts: 100 });
  const client = await connectV2(h.mcpUrl, await h.token({ upstreamToken }));
  const submitted = await client.callTool({
    name: 'submit_keyword_search',
    arguments: { query: 'energy prices', platforms: ['twitter', 'reddit', 'bluesky', 'threads'] },
  });
  searchId = submitted.structuredContent.search_id;
  await client.close();
  const res = await fetch(`${h.sandbox.searchUrl}/api/iq/keyword_search/${searchId}/posts_data`, {
    headers: { 'X-SERVICE-TOKEN': upstreamToken, 'X-SERVICE-USER-ID': 'analyst-1' },
  });
  sandboxPosts = ((await res.json()) as Json).posts;
});
afterAll(async () => {
  await h?.close();
});

/** Pages until next_offset is absent; returns every page's answer. */
async function pageAll(client: AnyClient, args: Record<string, unknown>): Promise<Json[]> {
  const pages: Json[] = [];
  let offset: number | undefined = 0;
  while (offset !== undefined) {
    const r = await client.callTool({
      name: 'get_keyword_search_posts_data',
      arguments: { search_id: searchId, offset, ...args },
    });
    expect(r.isError, textOf(r)).toBeFalsy();
    pages.push(r);
    const next: number | undefined = r.structuredContent.next_offset;
    if (next !== undefined) expect(next).toBe(offset + r.structuredContent.returned);
    offset = next;
    expect(pages.length).toBeLessThan(500);
  }
  return pages;
}

describe.each([
  ['v2', connectV2],
  ['v1', connectV1],
])('paging a 400-post search with the %s client', (_label, connect) => {
  let client: AnyClient;
  beforeAll(async () => {
    client = await connect(h.mcpUrl, await h.token({ upstreamToken }));
  });
  afterAll(async () => {
    await client?.close();
  });

  it('the sandbox holds 400 posts', () => {
    expect(sandboxPosts).toHaveLength(400);
    expect(new Set(sandboxPosts.map((p) => p.post_url)).size).toBe(400);
  });

  it('default pages (20 posts, summary) give every post exactly once', async () => {
    const pages = await pageAll(client, {});
    expect(pages).toHaveLength(20);
    const urls = pages.flatMap((p) => p.structuredContent.posts.map((x: Json) => x.url));
    expect(urls).toEqual(sandboxPosts.map((p) => p.post_url));
    for (const p of pages) expect(p.structuredContent.total).toBe(400);
    expect(textOf(pages[0])).toMatch(/posts 1–20 of 400\.\nThe posts below/);
    expect(textOf(pages[0])).toMatch(/Next page: get_keyword_search_posts_data with offset 20\.$/m);
    expect(textOf(pages.at(-1))).toMatch(/Last page\.$/m);
  });

  it('pages cut by the token budget say so, and the next one starts where it ended (full records)', async () => {
    const pages = await pageAll(client, { limit: 500, detail: 'full' });
    expect(pages.length).toBeGreaterThan(5);
    const cut = pages.filter(
      (p) => p.structuredContent.returned < 400 && p.structuredContent.next_offset !== undefined,
    );
    expect(cut.length).toBe(pages.length - 1);
    for (const p of cut) expect(textOf(p)).toMatch(/this page was cut to fit the token budget/);
    const posts = pages.flatMap((p) => p.structuredContent.posts);
    expect(posts).toEqual(sandboxPosts);
    for (const p of pages) {
      const json = jsonIn(textOf(p));
      expect(estimateTokens(json)).toBeLessThanOrEqual(MAX_RESULT_TOKENS);
      expect(p.structuredContent._truncated).toBeUndefined();
    }
  });

  it('one platform pages the same way', async () => {
    const pages = await pageAll(client, { platform: 'reddit', limit: 500 });
    const urls = pages.flatMap((p) => p.structuredContent.posts.map((x: Json) => x.url));
    expect(urls).toEqual(sandboxPosts.filter((p) => p.platform === 'reddit').map((p) => p.post_url));
  });
});
