import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UPSTREAM_HEADER_REJECTIONS } from '../../../src/mcp/auth/upstream-headers.js';
import { ALL_TOOLS } from '../../../src/mcp/tools/index.js';
import { connectV2, type Harness, type Json, startHarness } from '../../helpers/harness.js';
import { ROOT } from '../../helpers/process.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { tempDir } from '../../helpers/temp.js';

/**
 * The API description's hosted variant: a client configured with the two upstream headers instead of
 * OAuth. Real SDK clients (v2 with requestInit headers, v1 the same, mcp-remote with --header) against
 * the real server and sandbox; the headers' values are then looked for in every log line, every row of
 * every table and every error body.
 */
let h: Harness;
let token: string;
const userId = `hdr-user-${randomUUID()}`;
const headers = () => ({ 'X-SERVICE-TOKEN': token, 'X-SERVICE-USER-ID': userId });

beforeAll(async () => {
  h = await startHarness();
  token = await h.credential({ producer: true });
});
afterAll(async () => {
  await h?.close();
});

async function headersV2(extra: Record<string, string> = headers()): Promise<Json> {
  const client = new ClientV2({ name: 'headers-v2', version: '1' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(new TransportV2(new URL(h.mcpUrl), { requestInit: { headers: extra } }));
  return client;
}

async function headersV1(): Promise<Json> {
  const client = new ClientV1({ name: 'headers-v1', version: '1' });
  await client.connect(new TransportV1(new URL(h.mcpUrl), { requestInit: { headers: headers() } }));
  return client;
}

/** A raw POST of initialize to /mcp with these headers. */
function post(extra: Record<string, string>, url = h.mcpUrl) {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...extra },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    }),
  });
}

/** Every row of every table of the server's database, as one text. */
async function everyRow(server: TestServer): Promise<string> {
  const tables =
    server.engine === 'postgres'
      ? await server.sql.all<{ name: string }>(
          `SELECT '"' || schemaname || '"."' || tablename || '"' AS name FROM pg_tables
           WHERE schemaname NOT IN ('pg_catalog', 'information_schema')`,
        )
      : await server.sql.all<{ name: string }>(
          `SELECT '"' || name || '"' AS name FROM sqlite_master WHERE type = 'table'`,
        );
  expect(tables.length).toBeGreaterThan(10);
  const rows = await Promise.all(tables.map((t) => server.sql.all(`SELECT * FROM ${t.name}`)));
  return JSON.stringify(rows);
}

describe('the two upstream headers instead of OAuth', () => {
  it('the v2 client lists every tool and calls them as that upstream user', async () => {
    const client = await headersV2();
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(ALL_TOOLS.length);
    const usage = await client.callTool({ name: 'usage', arguments: {} });
    expect(usage.isError).toBeFalsy();
    const submitted = await client.callTool({
      name: 'submit_keyword_search',
      arguments: { query: '#headers' },
    });
    expect(submitted.isError).toBeFalsy();
    // Upstream saw the user id the client sent, on every call.
    const { requests } = await h.control('GET', `/credentials/${token}/requests`);
    const made = (requests as Array<{ path: string; user_id: string | null }>).filter(
      (r) => r.path !== '/api/usage',
    );
    expect(made.length).toBeGreaterThan(0);
    expect(new Set(made.map((r) => r.user_id))).toEqual(new Set([userId]));
    // Resources and prompts follow every permission too.
    expect((await client.listResourceTemplates()).resourceTemplates.length).toBeGreaterThan(0);
    expect((await client.listPrompts()).prompts.length).toBeGreaterThan(0);
    await client.close();
  });

  it('the v1 client lists and calls tools; the same record reads the same as through an OAuth grant', async () => {
    const v1 = await headersV1();
    expect((await v1.listTools()).tools).toHaveLength(ALL_TOOLS.length);
    const made = await v1.callTool({ name: 'submit_keyword_search', arguments: { query: 'same record' } });
    const id = made.structuredContent.search_id;
    expect(id).toBeTypeOf('number');
    const viaHeaders = await v1.callTool({ name: 'get_keyword_search', arguments: { search_id: id } });
    // The grant's workspace links the same token (under another user id: this file looks for the
    // headers' user id in every row later, and a linked credential stores its user id by design).
    const oauth = await connectV2(
      h.mcpUrl,
      await h.token({ upstreamToken: token, upstreamUserId: 'analyst-1' }),
    );
    const viaGrant = await oauth.callTool({ name: 'get_keyword_search', arguments: { search_id: id } });
    expect(viaHeaders.isError).toBeFalsy();
    expect(viaHeaders.structuredContent).toEqual(viaGrant.structuredContent);
    expect(viaHeaders.content).toEqual(viaGrant.content);
    await v1.close();
    await oauth.close();
  });

  it('X-MCP-Readonly narrows a header connection as it does an OAuth one', async () => {
    const client = await headersV2({ ...headers(), 'X-MCP-Readonly': 'true' });
    const { tools } = await client.listTools();
    expect(tools.length).toBeGreaterThan(0);
    expect(tools.length).toBeLessThan(ALL_TOOLS.length);
    expect(tools.every((t: Json) => t.annotations?.readOnlyHint === true)).toBe(true);
    const refused = await client.callTool({ name: 'submit_keyword_search', arguments: { query: 'x' } });
    expect(refused.isError).toBe(true);
    await client.close();
  });

  it('mcp-remote with --header relays the tools over stdio', async () => {
    const home = tempDir('sim-mcp-remote-headers-');
    const client = new ClientV1({ name: 'via-mcp-remote', version: '1' });
    await client.connect(
      new StdioV1({
        command: process.execPath,
        args: [
          join(ROOT, 'node_modules', 'mcp-remote', 'dist', 'proxy.js'),
          h.mcpUrl,
          '--header',
          `X-SERVICE-TOKEN:${token}`,
          '--header',
          `X-SERVICE-USER-ID:${userId}`,
        ],
        env: { PATH: process.env.PATH ?? '', HOME: home.path, BROWSER: '/bin/true' },
        stderr: 'ignore',
      }),
    );
    expect((await client.listTools()).tools).toHaveLength(ALL_TOOLS.length);
    const usage = await client.callTool({ name: 'usage', arguments: {} });
    expect(usage.isError).toBeFalsy();
    await client.close();
    home.remove();
  });

  it('checks the token upstream once, not on every request', async () => {
    await h.control('DELETE', `/credentials/${token}/requests`);
    for (let i = 0; i < 3; i++) {
      const client = await headersV2();
      await client.listTools();
      await client.close();
    }
    const { requests } = await h.control('GET', `/credentials/${token}/requests`);
    expect((requests as Array<{ path: string }>).filter((r) => r.path === '/api/usage')).toEqual([]);
  });

  it('the audit names the caller by a keyed hash, with no workspace, never by the token', async () => {
    const rows = await h.server.sql.all<{ user_id: string; client_id: string; workspace_id: string | null }>(
      "SELECT user_id, client_id, workspace_id FROM audit_events WHERE kind = 'tool_call' AND client_id = 'upstream-headers'",
    );
    expect(rows.length).toBeGreaterThan(0);
    expect(new Set(rows.map((r) => r.user_id)).size).toBe(1);
    expect(rows[0]?.user_id).toMatch(/^upstream:[A-Za-z0-9_-]{22}$/);
    expect(rows.every((r) => r.workspace_id === null)).toBe(true);
  });

  it('a rejected token is a 401 naming the header, with no Bearer challenge to start a sign-in', async () => {
    const wrong = `sbx_wrong_${randomUUID()}`;
    const res = await post({ 'X-SERVICE-TOKEN': wrong, 'X-SERVICE-USER-ID': userId });
    expect(res.status).toBe(401);
    const challenge = res.headers.get('www-authenticate') ?? '';
    expect(challenge).not.toMatch(/^bearer/i);
    expect(challenge).toMatch(/^Upstream-Headers /);
    const body = await res.text();
    expect(JSON.parse(body).error.message).toMatch(/rejected the token in X-SERVICE-TOKEN .*Correct/);
    expect(body).not.toContain(wrong);
    expect(body).not.toContain(userId);
    // The v2 client gets an error it can show, not an OAuth flow (it has no auth provider).
    await expect(headersV2({ 'X-SERVICE-TOKEN': wrong, 'X-SERVICE-USER-ID': userId })).rejects.toThrow();
  });

  it('one header alone is a 401 naming the missing one', async () => {
    const onlyToken = await post({ 'X-SERVICE-TOKEN': token });
    expect(onlyToken.status).toBe(401);
    expect(((await onlyToken.json()) as Json).error.message).toMatch(
      /^The X-SERVICE-USER-ID header is missing/,
    );
    const onlyUser = await post({ 'X-SERVICE-USER-ID': userId });
    expect(onlyUser.status).toBe(401);
    const body = await onlyUser.text();
    expect(JSON.parse(body).error.message).toMatch(/^The X-SERVICE-TOKEN header is missing/);
    expect(body).not.toContain(userId);
    expect(onlyUser.headers.get('www-authenticate')).not.toMatch(/^bearer/i);
  });

  it('the other /mcp rules hold: a foreign Origin is refused before the headers are looked at', async () => {
    const res = await post({ ...headers(), origin: 'https://evil.example' });
    expect(res.status).toBe(403);
    expect(await res.text()).not.toContain(token);
  });

  it('the token and user id appear in no log line and no database row', async () => {
    const logs = JSON.stringify(h.logs);
    expect(h.logs.length).toBeGreaterThan(10);
    expect(logs).not.toContain(token);
    expect(logs).not.toContain(userId);
    const rows = await everyRow(h.server);
    expect(rows).toContain('upstream-headers');
    expect(rows).not.toContain(token);
    expect(rows).not.toContain(userId);
  });

  it('rejected tokens from one address are limited, in parallel too; then 429 without asking upstream', async () => {
    const guesses = Array.from({ length: UPSTREAM_HEADER_REJECTIONS.limit + 1 }, (_, i) =>
      post({ 'X-SERVICE-TOKEN': `sbx_guess_${i}_${randomUUID()}`, 'X-SERVICE-USER-ID': 'u' }),
    );
    const answers = await Promise.all(guesses);
    const statuses = answers.map((res) => res.status);
    // The earlier test's rejected token counts too: 19 more are asked upstream, the other two are not.
    expect(statuses.filter((s) => s === 401)).toHaveLength(UPSTREAM_HEADER_REJECTIONS.limit - 1);
    expect(statuses.filter((s) => s === 429)).toHaveLength(2);
    const limited = answers.find((res) => res.status === 429) as Response;
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(((await limited.json()) as Json).error.message).toMatch(/^Too many rejected API tokens/);
    // A valid token already checked is still served from its kept verdict.
    expect((await post(headers())).status).toBe(200);
  });
});

// Sign-up that is not open turns the headers off by default: anyone holding any upstream token
// would otherwise be served without an account; an explicit setting wins either way.
describe.each([
  { env: { ALLOW_UPSTREAM_HEADERS: 'false' } as Record<string, string> },
  { env: { SIGNUP: 'invite' } as Record<string, string> },
  { env: { SIGNUP: 'closed' } as Record<string, string> },
])('with $env', ({ env }) => {
  let off: TestServer;
  beforeAll(async () => {
    off = await startTestServer({
      upstream: { searchUrl: h.sandbox.searchUrl, agentUrl: h.sandbox.agentUrl },
      env,
    });
  });
  afterAll(async () => {
    await off?.close();
  });

  it('answers 401 saying the operator turned the headers off, and offers OAuth instead', async () => {
    const res = await post(headers(), `${off.url}/mcp`);
    expect(res.status).toBe(401);
    const body = await res.text();
    expect(JSON.parse(body).error.message).toBe(
      'This server does not accept the X-SERVICE-TOKEN and X-SERVICE-USER-ID headers: its operator turned them off. Remove them and connect with OAuth (sign in when your client asks).',
    );
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer resource_metadata=/);
    expect(body).not.toContain(token);
    // Nothing was asked upstream for it.
    expect(JSON.stringify(off.logs)).not.toContain(token);
  });
});

describe('with SIGNUP=closed and ALLOW_UPSTREAM_HEADERS=true', () => {
  let on: TestServer;
  beforeAll(async () => {
    on = await startTestServer({
      upstream: { searchUrl: h.sandbox.searchUrl, agentUrl: h.sandbox.agentUrl },
      env: { SIGNUP: 'closed', ALLOW_UPSTREAM_HEADERS: 'true' },
    });
  });
  afterAll(async () => {
    await on?.close();
  });

  it('serves the headers: the operator turned them on', async () => {
    expect((await post(headers(), `${on.url}/mcp`)).status).toBe(200);
  });
});
