import { describe, expect, it } from 'vitest';
import { textOf } from '../../helpers/harness.js';
import { mcpBehaviourFixture } from '../../helpers/mcp-behaviour.js';

/**
 * What a model reads around unfinished work and people's words: posts and topic trees of a running
 * search say it still runs, with status, percentage and the call that waits (never an empty last
 * page); platforms written as people say them are read as the upstream's names, once noted; a
 * platform the upstream does not cover is named in the error with what it covers, each bad value once.
 */
const fx = mcpBehaviourFixture();

describe('unfinished work', () => {
  it('posts and topic trees of a running search say it still runs and which call waits', async () => {
    const { client, upstreamToken } = await fx.session();
    await fx.h.control('PATCH', `/credentials/${upstreamToken}`, { speed: 'realistic' });
    await fx.h.control('POST', '/clock', { freeze: true });
    const submitted = await client.callTool({ name: 'submit_keyword_search', arguments: { query: 'slow' } });
    const id = submitted.structuredContent.search_id;
    expect(textOf(submitted)).toMatch(/: still running \(status \w+, \d+% done\)\./);
    expect(textOf(submitted)).not.toMatch(/still (started|pending)/);
    for (const name of ['get_keyword_search_posts_data', 'get_keyword_search_topic_tree']) {
      const r = await client.callTool({ name, arguments: { search_id: id } });
      const text = textOf(r);
      expect(text).toMatch(
        new RegExp(
          `^Keyword search ${id} is still running \\(status \\w+, \\d+% done\\): its (posts|topic trees) come when it finishes\\. Call get_keyword_search with search_id ${id} and wait true`,
        ),
      );
      expect(text).not.toMatch(/of 0|Last page|LinkedIn/);
      expect(r.structuredContent.completed).toBe(false);
    }
    await client.close();
  });
});

describe('platform words', () => {
  it('reads X as twitter, says so once, and names an uncovered platform with what is covered', async () => {
    const { client } = await fx.session();
    const bad = await client.callTool({
      name: 'submit_keyword_search',
      arguments: { query: 'q', platforms: ['tiktok', 'X', 'TikTok'] },
    });
    expect(bad.isError).toBe(true);
    const text = textOf(bad);
    expect(text).toMatch(/platforms: "tiktok" is not covered by the upstream; it covers twitter, reddit, /);
    expect(text.match(/tiktok/gi)).toHaveLength(1);
    expect(text.match(/twitter/g)).toHaveLength(1);
    expect(text).not.toMatch(/"x"/i);

    const user = await client.callTool({
      name: 'submit_user_search',
      arguments: { query: 'examplenews', platform: 'Twitter/X' },
    });
    expect(user.isError, textOf(user)).toBeFalsy();
    expect(textOf(user)).toMatch(/^"Twitter\/X" was read as twitter \(the upstream's name for X\)\.\n/);
    expect(textOf(user).match(/was read as twitter/g)).toHaveLength(1);
    expect(user.structuredContent.platform).toBe('twitter');
    await client.close();
  });
});
