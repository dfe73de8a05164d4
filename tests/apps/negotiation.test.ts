import { RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VIEWS } from '../../src/mcp/apps/definitions.js';
import { ALL_TOOLS } from '../../src/mcp/tools/index.js';
import { type Harness, type Json, startHarness } from '../helpers/harness.js';
import { type AppsClient, connectClient, type Era, UI_CAPABILITIES } from './clients.js';

/**
 * MCP Apps negotiation (SEP-1865 "Client<>Server Capability Negotiation"): the views are offered to
 * a client that declared `io.modelcontextprotocol/ui`, with both protocol eras' SDK clients, and a
 * client that did not declare it gets the same tools and results with no trace of them.
 */
let h: Harness;
let upstreamToken: string;
beforeAll(async () => {
  h = await startHarness();
  upstreamToken = await h.credential();
});
afterAll(async () => {
  await h?.close();
});

const VIEW_OF = new Map(VIEWS.flatMap((v) => v.tools.map((t) => [t, v.uri] as const)));

/** A tool as listed, minus the view metadata. */
function withoutMeta(tool: Json): Json {
  const { _meta, ...rest } = tool;
  return rest;
}

describe.each<Era>(['v2', 'v1'])('MCP Apps with the %s client', (era) => {
  let withViews: AppsClient;
  let plain: AppsClient;
  beforeAll(async () => {
    withViews = await connectClient(era, h.mcpUrl, await h.token({ upstreamToken }), true);
    plain = await connectClient(era, h.mcpUrl, await h.token({ upstreamToken }), false);
  });
  afterAll(async () => {
    await withViews?.close();
    await plain?.close();
  });

  it('links each view from its tools, under both metadata keys, for a client that declared the extension', async () => {
    const { tools } = await withViews.listTools();
    expect(tools).toHaveLength(ALL_TOOLS.length);
    for (const tool of tools) {
      const uri = VIEW_OF.get(tool.name);
      if (uri) {
        expect(tool._meta, tool.name).toEqual({ ui: { resourceUri: uri }, 'ui/resourceUri': uri });
      } else {
        expect(tool._meta, tool.name).toBeUndefined();
      }
    }
    expect(VIEW_OF.size).toBe(7);
    expect(withViews.getServerCapabilities().extensions).toMatchObject({ 'io.modelcontextprotocol/ui': {} });
  });

  it('lists and serves the views as ui:// resources with a CSP that names no outside domain', async () => {
    const { resources } = await withViews.listResources();
    expect(resources.map((r: Json) => r.uri)).toEqual(VIEWS.map((v) => v.uri));
    for (const resource of resources) {
      expect(resource.mimeType).toBe(RESOURCE_MIME_TYPE);
      const read = await withViews.readResource({ uri: resource.uri });
      expect(read.contents).toHaveLength(1);
      const [content] = read.contents;
      expect(content.uri).toBe(resource.uri);
      expect(content.mimeType).toBe('text/html;profile=mcp-app');
      expect(content.text).toMatch(/^<!doctype html>/);
      expect(content._meta.ui.csp).toEqual({
        connectDomains: [],
        resourceDomains: [],
        frameDomains: [],
        baseUriDomains: [],
      });
    }
  });

  it('gives a client that did not declare it the same tools, without metadata, and no views', async () => {
    const [listed, declared] = [await plain.listTools(), await withViews.listTools()];
    expect(listed.tools).toEqual(declared.tools.map(withoutMeta));
    for (const tool of listed.tools) expect(tool._meta, tool.name).toBeUndefined();
    expect(JSON.stringify(listed)).not.toMatch(/ui:\/\/|ui\/resourceUri/);
    expect((await plain.listResources()).resources).toEqual([]);
    expect(plain.getServerCapabilities().extensions?.['io.modelcontextprotocol/ui']).toBeUndefined();
  });

  it('answers tool calls the same either way', async () => {
    const submitted = await plain.callTool({
      name: 'submit_keyword_search',
      arguments: { query: 'tram lines' },
    });
    const search_id = submitted.structuredContent.search_id;
    const a = await plain.callTool({ name: 'get_keyword_search', arguments: { search_id } });
    const b = await withViews.callTool({ name: 'get_keyword_search', arguments: { search_id } });
    expect(b).toEqual(a);
    expect(JSON.stringify(a)).not.toMatch(/ui:\/\//);
  });

  it('lists only the views of the tools a grant may call', async () => {
    const agentOnly = await connectClient(
      era,
      h.mcpUrl,
      await h.token({ upstreamToken, scopes: ['agent:read'] }),
      true,
    );
    expect((await agentOnly.listResources()).resources.map((r: Json) => r.uri)).toEqual([
      'ui://social-intel/agent-run.html',
    ]);
    await agentOnly.close();
  });
});

/** One JSON-RPC message over HTTP as a 2025-era client sends it (no per-request capabilities). */
async function legacy(token: string, body: Record<string, unknown>): Promise<Json> {
  const res = await fetch(h.mcpUrl, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
    },
    body: JSON.stringify({ jsonrpc: '2.0', ...body }),
  });
  const text = await res.text();
  expect(res.status, text).toBe(200);
  const data = text.startsWith('{') ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? '');
  return JSON.parse(data);
}

const initialize = (token: string, capabilities: object) =>
  legacy(token, {
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities, clientInfo: { name: 'raw', version: '1' } },
  });

const metaCount = (answer: Json) => answer.result.tools.filter((t: Json) => t._meta).length;

describe('2025-era connections', () => {
  it('keep what their initialize declared, also through the tools/list replay cache', async () => {
    const declared = await h.token({ upstreamToken });
    const undeclared = await h.token({ upstreamToken });
    const init = await initialize(declared, UI_CAPABILITIES);
    expect(init.result.capabilities.extensions).toMatchObject({ 'io.modelcontextprotocol/ui': {} });
    const undeclaredInit = await initialize(undeclared, {});
    expect(undeclaredInit.result.capabilities.extensions?.['io.modelcontextprotocol/ui']).toBeUndefined();
    // The same bytes from both: only what each initialize said tells the answers apart.
    for (let round = 0; round < 2; round++) {
      expect(metaCount(await legacy(declared, { id: 7, method: 'tools/list' }))).toBe(7);
      expect(metaCount(await legacy(undeclared, { id: 7, method: 'tools/list' }))).toBe(0);
    }
    const views = await legacy(declared, { id: 8, method: 'resources/list' });
    expect(views.result.resources).toHaveLength(3);
    expect((await legacy(undeclared, { id: 8, method: 'resources/list' })).result.resources).toEqual([]);
    // Connecting again without the extension ends it.
    await initialize(declared, {});
    expect(metaCount(await legacy(declared, { id: 7, method: 'tools/list' }))).toBe(0);
  });

  it('may read a view by its URI without having declared anything (another instance saw the initialize)', async () => {
    const token = await h.token({ upstreamToken });
    const read = await legacy(token, {
      id: 3,
      method: 'resources/read',
      params: { uri: 'ui://social-intel/search.html' },
    });
    expect(read.result.contents[0].mimeType).toBe(RESOURCE_MIME_TYPE);
    const unknown = await legacy(token, {
      id: 4,
      method: 'resources/read',
      params: { uri: 'ui://social-intel/nothing.html' },
    });
    expect(unknown.error.message).toMatch(/not found/i);
  });
});
