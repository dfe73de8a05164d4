import { describe, expect, it } from 'vitest';
import { connectV2, textOf } from '../../helpers/harness.js';
import { mcpBehaviourFixture } from '../../helpers/mcp-behaviour.js';

/**
 * A running search's preview through the real server: each answer shows only the preview posts this
 * connection was not shown yet (a get with `wait` does not resend the last answer's), says how many it
 * left out, names each post's platform, and gives YouTube views apart; another connection is shown the
 * whole preview; the finished search shows its results, not its preview.
 */
const fx = mcpBehaviourFixture();

const postLines = (text: string) => text.split('\n').filter((l) => /^\d+\. /.test(l));

describe('preview posts while a search runs', () => {
  it('shows only what is new since the last answer, per connection', async () => {
    const { client, upstreamToken } = await fx.session();
    await fx.h.control('PATCH', `/credentials/${upstreamToken}`, { speed: 'realistic' });
    await fx.h.control('POST', '/clock', { freeze: true });
    const submitted = await client.callTool({
      name: 'submit_keyword_search',
      arguments: { query: 'preview heat pumps', platforms: ['twitter', 'youtube', 'reddit'] },
    });
    const id = submitted.structuredContent.search_id;
    // Realistic: 15 s pending, then 150 s started, the preview filling as it goes.
    await fx.h.control('POST', '/clock', { advance_ms: 15_000 + 45_000 });
    const first = await client.callTool({ name: 'get_keyword_search', arguments: { search_id: id } });
    const shown = first.structuredContent.preview_posts;
    expect(shown.length, textOf(first)).toBeGreaterThan(0);
    expect(postLines(textOf(first))).toHaveLength(shown.length);
    for (const [i, line] of postLines(textOf(first)).entries()) {
      const post = shown[i];
      expect(post.platform).toMatch(/^(twitter|youtube|youtube_comment|reddit)$/);
      expect(line.startsWith(`${i + 1}. ${post.platform} · `)).toBe(true);
      if (post.platform === 'youtube') expect(line).toMatch(/ interactions · [\d,]+ views · /);
    }
    expect(first.structuredContent.preview_shown_before).toBeUndefined();

    const again = await client.callTool({ name: 'get_keyword_search', arguments: { search_id: id } });
    expect(postLines(textOf(again))).toHaveLength(0);
    expect(again.structuredContent.preview_posts).toEqual([]);
    expect(again.structuredContent.preview_shown_before).toBe(shown.length);
    expect(textOf(again)).toContain(
      `No new preview posts since the last answer: ${shown.length} preview post${shown.length === 1 ? '' : 's'} shown in an earlier answer`,
    );

    await fx.h.control('POST', '/clock', { advance_ms: 60_000 });
    const waited = await client.callTool({
      name: 'get_keyword_search',
      arguments: { search_id: id, wait: true },
    });
    const fresh = waited.structuredContent.preview_posts;
    expect(fresh.length, textOf(waited)).toBeGreaterThan(0);
    const urls = new Set(shown.map((p: { url: string }) => p.url));
    for (const p of fresh) expect(urls.has(p.url)).toBe(false);
    expect(waited.structuredContent.preview_shown_before).toBe(shown.length);
    expect(textOf(waited)).toMatch(/new preview posts?, as upstream sent them/);

    // Another connection has been shown nothing: the whole preview.
    const other = await fx.h.token({ upstreamToken });
    const second = await connectV2(fx.h.mcpUrl, other);
    const whole = await second.callTool({ name: 'get_keyword_search', arguments: { search_id: id } });
    expect(whole.structuredContent.preview_posts).toHaveLength(shown.length + fresh.length);
    await second.close();

    await fx.h.control('POST', '/clock', { advance_ms: 600_000 });
    const done = await client.callTool({ name: 'get_keyword_search', arguments: { search_id: id } });
    expect(done.structuredContent.completed).toBe(true);
    expect(done.structuredContent.preview_posts).toBeUndefined();
    expect(textOf(done)).not.toMatch(/preview post/);
    await client.close();
  });
});
