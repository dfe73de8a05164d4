import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROMPTS } from '../../../src/mcp/prompts/definitions.js';
import { TEMPLATES } from '../../../src/mcp/resources/templates.js';
import { ALL_TOOLS, toolByName } from '../../../src/mcp/tools/index.js';
import { TOOLSETS, type Toolset, writes } from '../../../src/mcp/tools/toolsets.js';
import { type Harness, type Json, startHarness, textOf } from '../../helpers/harness.js';

/**
 * Toolsets and read-only: a connection narrows its tools by URL (`?toolsets=`, `?readonly=`, the
 * /mcp/readonly path) or headers (`X-MCP-Toolsets`, `X-MCP-Readonly`); tools/list, prompts and
 * resource templates follow, and a call outside the selection is refused with a result naming the
 * toolset (or read-only) before anything reaches upstream. Real server, sandbox and SDK clients of
 * both eras.
 */
let h: Harness;
let upstreamToken: string;
let access: string;
beforeAll(async () => {
  h = await startHarness();
  upstreamToken = await h.credential({ producer: true });
  access = await h.token({ upstreamToken });
});
afterAll(async () => {
  await h?.close();
});

type Connected = {
  listTools(): Promise<{ tools: Json[] }>;
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<Json>;
  listPrompts(): Promise<{ prompts: Json[] }>;
  listResourceTemplates(): Promise<{ resourceTemplates: Json[] }>;
  readResource(params: { uri: string }): Promise<Json>;
  close(): Promise<void>;
};

async function connect(
  era: 'v1' | 'v2',
  path: string,
  headers: Record<string, string> = {},
  token = access,
): Promise<Connected> {
  const requestInit = { headers: { authorization: `Bearer ${token}`, ...headers } };
  const url = new URL(`${h.server.url}${path}`);
  if (era === 'v2') {
    const client = new ClientV2({ name: 'toolsets', version: '1' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(new TransportV2(url, { requestInit }));
    return client as unknown as Connected;
  }
  const client = new ClientV1({ name: 'toolsets', version: '1' });
  await client.connect(new TransportV1(url, { requestInit }));
  return client as unknown as Connected;
}

const namesIn = (toolsets: readonly Toolset[]) =>
  ALL_TOOLS.filter((t) => toolsets.includes(t.toolset)).map((t) => t.name);

describe('the toolsets, as the tools declare them', () => {
  it('every tool is in one of the six toolsets, and each toolset has tools', () => {
    const counts = TOOLSETS.map((t) => namesIn([t]).length);
    expect(counts.every((n) => n > 0)).toBe(true);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(ALL_TOOLS.length);
  });

  it('read-only leaves out exactly the tools that write: those on a write scope, every credit-spending one among them', () => {
    for (const tool of ALL_TOOLS) {
      expect(writes(tool), tool.name).toBe(tool.scope.endsWith(':write'));
      if (tool.spendsCredits) expect(writes(tool), tool.name).toBe(true);
    }
  });

  it('every prompt and resource template names tools of the catalog', () => {
    for (const prompt of PROMPTS)
      for (const tool of prompt.tools) expect(toolByName(tool), tool).toBeDefined();
    for (const template of TEMPLATES) expect(toolByName(template.tool), template.tool).toBeDefined();
  });
});

describe.each(['v2', 'v1'] as const)('a connection that chooses toolsets (%s client)', (era) => {
  it('by URL: tools/list, prompts and resource templates follow', async () => {
    const client = await connect(era, '/mcp?toolsets=searches,posts');
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(namesIn(['searches', 'posts']).sort());
      const { prompts } = await client.listPrompts();
      expect(prompts.map((p) => p.name).sort()).toEqual([
        'check_narrative',
        'compare_brands',
        'profile_account',
      ]);
      const { resourceTemplates } = await client.listResourceTemplates();
      const readers = resourceTemplates.map((t) => TEMPLATES.find((d) => d.name === t.name)?.tool);
      expect(readers.length).toBeGreaterThan(0);
      for (const tool of readers) expect(['searches', 'posts']).toContain(toolByName(tool ?? '')?.toolset);
    } finally {
      await client.close();
    }
  });

  it('by header, narrowed further by the URL: only what both chose', async () => {
    const client = await connect(era, '/mcp?toolsets=account,searches', {
      'X-MCP-Toolsets': 'account, agent_runs',
    });
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(namesIn(['account']).sort());
    } finally {
      await client.close();
    }
  });

  it.each([
    ['the /mcp/readonly path', '/mcp/readonly', {}],
    ['?readonly=1', '/mcp?readonly=1', {}],
    ['X-MCP-Readonly', '/mcp', { 'X-MCP-Readonly': 'true' }],
    [
      'the read-only path with a toolset',
      '/mcp/readonly?toolsets=searches,posts,experts,agent_runs,schedules,account',
      {},
    ],
  ])(
    'read-only by %s lists every read tool and no tool that writes or spends',
    async (_how, path, headers) => {
      const client = await connect(era, path, headers);
      try {
        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name).sort()).toEqual(
          ALL_TOOLS.filter((t) => !writes(t))
            .map((t) => t.name)
            .sort(),
        );
        for (const tool of tools) expect(tool.annotations?.readOnlyHint, tool.name).toBe(true);
        // Every prompt starts something: none is offered to a read-only connection.
        expect((await client.listPrompts()).prompts).toEqual([]);
      } finally {
        await client.close();
      }
    },
  );
});

describe('a call outside the selection', () => {
  const requestsUpstream = async () =>
    (await h.control('GET', `/credentials/${encodeURIComponent(upstreamToken)}/requests`)).requests.length;

  it.each([
    ['a waiting tool that spends credits', 'submit_keyword_search', { query: 'heat pumps' }],
    [
      'a tool that changes the team webhook',
      'update_integration_setup',
      { return_url: 'https://example.com/hook' },
    ],
    ['a tool that deletes', 'delete_agent_schedule', { schedule_id: '00000000-0000-4000-8000-000000000000' }],
  ])('read-only refuses %s before anything reaches upstream', async (_what, name, args) => {
    for (const era of ['v2', 'v1'] as const) {
      const client = await connect(era, '/mcp/readonly');
      try {
        const before = await requestsUpstream();
        const result = await client.callTool({ name, arguments: args });
        expect(result.isError).toBe(true);
        expect(textOf(result)).toContain('read-only: nothing was sent upstream');
        expect(await requestsUpstream()).toBe(before);
      } finally {
        await client.close();
      }
    }
  });

  it('a tool of a toolset not chosen is refused naming its toolset, even when the grant lacks its scope (no step-up)', async () => {
    const narrow = await h.token({ upstreamToken, scopes: ['searches:read'] });
    const client = await connect('v2', '/mcp?toolsets=posts', {}, narrow);
    try {
      const result = await client.callTool({
        name: 'start_agent_run',
        arguments: { question: 'What changed?' },
      });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain('start_agent_run is in the toolset "agent_runs"');
      expect(textOf(result)).toContain('it chose: posts');
    } finally {
      await client.close();
    }
  });

  it('a resource whose read tool is outside the selection is not read', async () => {
    const client = await connect('v2', '/mcp?toolsets=account');
    try {
      await expect(client.readResource({ uri: 'social-intel://keyword-searches/1' })).rejects.toThrow(
        /toolset "searches"/,
      );
    } finally {
      await client.close();
    }
  });

  it('the refusal is audited with its reason', async () => {
    const { auditEvents } = h.server.db.t;
    const rows = await h.server.db.orm
      .select()
      .from(auditEvents)
      .where(eq(auditEvents.tool, 'update_integration_setup'));
    expect(
      rows.some((r) => r.status === 'refused' && JSON.parse(r.detail ?? '{}').reason === 'read_only'),
    ).toBe(true);
  });
});

describe('requests that name a selection wrongly', () => {
  const post = (path: string, headers: Record<string, string> = {}) =>
    fetch(`${h.server.url}${path}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${access}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });

  it.each([
    [
      'an unknown toolset in the URL',
      '/mcp?toolsets=searches,postz',
      {},
      /Unknown toolset "postz".*searches, posts, experts/,
    ],
    [
      'an unknown toolset in the header',
      '/mcp',
      { 'X-MCP-Toolsets': 'everything' },
      /Unknown toolset "everything"/,
    ],
    ['a readonly value that is neither true nor false', '/mcp?readonly=maybe', {}, /must be true or false/],
  ])('%s: 400 with a sentence naming the valid values', async (_what, path, headers, message) => {
    const res = await post(path, headers);
    expect(res.status).toBe(400);
    const body = (await res.json()) as Json;
    expect(body.error.message).toMatch(message);
  });

  it('the tools/list replay is kept per selection: the same request body at another selection gets its own list', async () => {
    const count = async (path: string) => {
      const res = await post(path, { 'mcp-protocol-version': '2025-06-18' });
      return ((await res.json()) as Json).result.tools.length;
    };
    expect(await count('/mcp')).toBe(ALL_TOOLS.length);
    expect(await count('/mcp?toolsets=account')).toBe(
      ALL_TOOLS.filter((t) => t.toolset === 'account').length,
    );
    expect(await count('/mcp/readonly')).toBe(ALL_TOOLS.filter((t) => !writes(t)).length);
    expect(await count('/mcp')).toBe(ALL_TOOLS.length);
  });
});
