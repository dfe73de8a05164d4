import { describe, expect, it } from 'vitest';
import { ALL_TOOLS } from '../../../src/mcp/tools/index.js';
import { connectV1, connectV2 } from '../../helpers/harness.js';
import { mcpBehaviourFixture } from '../../helpers/mcp-behaviour.js';

/**
 * OAuth scopes on /mcp: a grant without searches:write does not list the submit tools (v2 and v1),
 * and a tools/call outside the grant is HTTP 403 insufficient_scope before any upstream call.
 */
const fx = mcpBehaviourFixture();
const { session, requests } = fx;

describe('scopes', () => {
  it.each([
    ['v2', connectV2],
    ['v1', connectV1],
  ])('a grant without searches:write does not list the submit tools (%s)', async (_l, connect) => {
    const { client } = await session(connect, { producer: true }, ['searches:read', 'agent:read']);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).not.toContain('submit_keyword_search');
    expect(names).not.toContain('start_agent_run');
    expect(names).toContain('get_keyword_search');
    expect(names).toContain('list_agent_runs');
    expect(names).not.toContain('usage');
    expect(names.length).toBe(
      ALL_TOOLS.filter((t) => ['searches:read', 'agent:read'].includes(t.scope)).length,
    );
    await expect(
      client.callTool({ name: 'submit_keyword_search', arguments: { query: 'not allowed' } }),
    ).rejects.toThrow();
    await client.close();
  });
});

describe('scopes over raw HTTP', () => {
  it('a tools/call outside the grant is HTTP 403 insufficient_scope, before any upstream call', async () => {
    const upstreamToken = await fx.h.credential();
    const access = await fx.h.token({ upstreamToken, scopes: ['searches:read'] });
    const res = await fetch(fx.h.mcpUrl, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${access}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'start_agent_run', arguments: { question: 'not allowed' } },
      }),
    });
    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toMatch(/insufficient_scope.*agent:write/);
    await res.text();
    expect(await requests(upstreamToken)).toEqual([]);
  });
});
