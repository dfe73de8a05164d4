import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_TOOLS, TOOL_SUMMARIES } from '../../src/mcp/tools/index.js';
import { startSandboxServer } from '../../src/sandbox/server.js';
import { issueTestToken } from '../helpers/grants.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/** The tools as the composed app serves them at /mcp (not a test harness's own mount). */
let sandbox: Awaited<ReturnType<typeof startSandboxServer>>;

beforeAll(async () => {
  sandbox = await startSandboxServer({ port: 0, host: '127.0.0.1', speed: 'instant' });
});
afterAll(() => sandbox.close());

async function credential(speed: 'instant' | 'realistic'): Promise<string> {
  const res = await fetch(`${sandbox.searchUrl}/__sandbox/credentials`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ speed }),
  });
  return ((await res.json()) as { token: string }).token;
}

async function connect(server: TestServer, accessToken: string): Promise<Client> {
  const client = new Client({ name: 'app-tools', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${accessToken}` } },
    }),
  );
  return client;
}

describe('the composed app', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ upstream: sandbox });
  });
  afterAll(() => server.close());

  it('lists every tool at /mcp and on the home page', async () => {
    const grant = await issueTestToken(server, { upstreamToken: await credential('instant') });
    const client = await connect(server, grant.accessToken);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(TOOL_SUMMARIES.map((t) => t.name).sort());
    expect(tools).toHaveLength(ALL_TOOLS.length);
    const home = await (await fetch(`${server.url}/`)).text();
    for (const { name } of TOOL_SUMMARIES) expect(home).toContain(name);
    await client.close();
  });

  it('a grant without searches:write is refused submit_keyword_search with the 403 challenge', async () => {
    const grant = await issueTestToken(server, {
      upstreamToken: await credential('instant'),
      scopes: ['searches:read'],
    });
    const res = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${grant.accessToken}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'submit_keyword_search', arguments: { query: 'x' } },
      }),
    });
    expect(res.status).toBe(403);
    const challenge = res.headers.get('www-authenticate') ?? '';
    expect(challenge).toContain('error="insufficient_scope"');
    expect(challenge).toContain('scope="searches:read searches:write"');
  });
});

describe('shutdown while a tool call is waiting', () => {
  it('answers the call with its handle and the tool to call later, and cancels nothing upstream', async () => {
    const server = await startTestServer({ upstream: sandbox });
    const token = await credential('realistic'); // searches take minutes
    const grant = await issueTestToken(server, { upstreamToken: token });
    const client = await connect(server, grant.accessToken);
    const call = client.callTool({ name: 'submit_keyword_search', arguments: { query: 'harbour ferries' } });
    // Wait until the search exists upstream, then stop the server.
    for (let i = 0; i < 100; i++) {
      const record = (await (await fetch(`${sandbox.searchUrl}/__sandbox/credentials/${token}`)).json()) as {
        searches: { keyword: unknown[] };
      };
      if (record.searches.keyword.length) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const closing = server.close();
    const result = (await call) as { isError?: boolean; content: Array<{ type: string; text: string }> };
    await closing;
    expect(result.isError).toBeFalsy();
    const text = result.content.map((c) => c.text).join('\n');
    expect(text).toContain('get_keyword_search');
    const record = (await (await fetch(`${sandbox.searchUrl}/__sandbox/credentials/${token}`)).json()) as {
      searches: { keyword: Array<{ id: number; status: string }> };
    };
    expect(record.searches.keyword).toHaveLength(1);
    expect(text).toContain(String(record.searches.keyword[0]?.id));
    expect(record.searches.keyword[0]?.status).not.toBe('failed');
    await client.close().catch(() => {});
  });
});
