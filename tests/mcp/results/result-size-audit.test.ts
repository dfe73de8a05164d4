import { describe, expect, it } from 'vitest';
import { estimateTokens } from '../../../src/mcp/results/tokens.js';
import { connectV2, type Json, jsonIn, textOf } from '../../helpers/harness.js';
import { mcpBehaviourFixture } from '../../helpers/mcp-behaviour.js';

/**
 * What a tool call leaves: a full result capped with what was cut and where the rest is (posts marked
 * untrusted), and one audit row per call, without its arguments.
 */
const fx = mcpBehaviourFixture();
const { session } = fx;

describe('result shaping', () => {
  it('caps a full result, says what was cut and where the rest is, and marks posts as untrusted', async () => {
    const { client, upstreamToken } = await session();
    const r = await client.callTool({
      name: 'submit_keyword_search',
      arguments: { query: 'big result', max_post: 100, detail: 'full' },
    });
    const text = textOf(r);
    const json = jsonIn(text);
    expect(estimateTokens(json)).toBeLessThanOrEqual(5_000);
    const truncated = r.structuredContent._truncated as Json[];
    expect(truncated.length).toBeGreaterThan(0);
    for (const t of truncated) expect(t.kept).toBeLessThan(t.total);
    expect(text).toMatch(/Answer cut to fit 5,000 tokens \(.*items kept/);
    expect(text).toMatch(/user-generated content/);

    // A trimmed posts array continues in the posts tool at the offset the report names.
    const id = r.structuredContent.search_id;
    const twitter = truncated.find((t) => t.path === 'results.posts.twitter');
    expect(twitter?.rest).toBe(
      `get_keyword_search_posts_data with search_id ${id}, platform "twitter", offset ${twitter?.kept}`,
    );
    const upstream: Json = await (
      await fetch(`${fx.h.sandbox.searchUrl}/api/iq/keyword_search/${id}/posts_data?platform=twitter`, {
        headers: { 'X-SERVICE-TOKEN': upstreamToken, 'X-SERVICE-USER-ID': 'analyst-1' },
      })
    ).json();
    const kept = r.structuredContent.results.posts.twitter.map((p: Json) => p.l);
    const rest = await client.callTool({
      name: 'get_keyword_search_posts_data',
      arguments: { search_id: id, platform: 'twitter', offset: twitter?.kept, limit: 500 },
    });
    const urls = [...kept, ...rest.structuredContent.posts.map((p: Json) => p.url)];
    expect(urls).toEqual(upstream.posts.map((p: Json) => p.post_url));

    const page = await client.callTool({
      name: 'get_keyword_search_posts_data',
      arguments: { search_id: id, limit: 2 },
    });
    expect(page.structuredContent.posts.length).toBe(2);
    expect(page.structuredContent._truncated).toBeUndefined();
    await client.close();
  });
});

describe('audit', () => {
  it('writes one tool_call row per call, without arguments', async () => {
    const { client } = await session(connectV2, { credits: 0 });
    await client.callTool({ name: 'get_integration_setup', arguments: {} });
    await client.callTool({ name: 'submit_keyword_search', arguments: { query: 'secret-query-text' } });
    await client.callTool({ name: 'get_agent_run', arguments: { run_id: 'nope' } });
    const rows = (await fx.h.server.sql.all(
      "SELECT * FROM audit_events WHERE kind = 'tool_call' ORDER BY id DESC LIMIT 3",
    )) as Json[];
    expect(rows.map((r) => [r.tool, r.status]).reverse()).toEqual([
      ['get_integration_setup', 'ok'],
      ['submit_keyword_search', '402'],
      ['get_agent_run', 'invalid'],
    ]);
    for (const row of rows) {
      expect(row.user_id).toBeTruthy();
      expect(row.workspace_id).toBeTruthy();
      expect(row.client_id).toBe('test-client');
      expect(row.duration_ms).toBeGreaterThanOrEqual(0);
      expect(JSON.stringify(row)).not.toContain('secret-query-text');
    }
    await client.close();
  });
});
