import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { Client as ClientV2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioV2 } from '@modelcontextprotocol/client/stdio';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ALL_TOOLS } from '../../src/mcp/tools/index.js';
import { UI_CAPABILITIES } from '../apps/clients.js';
import { type Harness, type Json, type RawClient, rawV2, startHarness } from '../helpers/harness.js';
import { ROOT } from '../helpers/process.js';
import { tempDir } from '../helpers/temp.js';

/**
 * `social-intel-mcp stdio`, the local server a client starts as a command: the real bin launcher as a
 * child process, driven by the v2 and v1 SDK clients' stdio transports, against the same sandbox as a
 * hosted server, whose answers for the same upstream record it must equal. Run once (no database).
 */
const BIN = join(ROOT, 'bin', 'social-intel-mcp.js');
const USER_ID = 'stdio-analyst';

let h: Harness;
let token: string;
let env: Record<string, string>;
/** Where the child runs: nothing may be written there. */
const cwd = tempDir('sim-stdio-cwd-');
let v2: Json;
let v2Logs = '';
let hosted: RawClient;

beforeAll(async () => {
  h = await startHarness();
  token = await h.credential({ producer: true });
  env = {
    PATH: process.env.PATH ?? '',
    UPSTREAM_SEARCH_URL: h.sandbox.searchUrl,
    UPSTREAM_AGENT_URL: h.sandbox.agentUrl,
    UPSTREAM_TOKEN: token,
    UPSTREAM_USER_ID: USER_ID,
    LOG_LEVEL: 'debug',
  };
  const transport = new StdioV2({
    command: process.execPath,
    args: [BIN, 'stdio'],
    env,
    cwd: cwd.path,
    stderr: 'pipe',
  });
  (transport.stderr as Readable | null)?.setEncoding('utf8').on('data', (d: string) => {
    v2Logs += d;
  });
  v2 = new ClientV2(
    { name: 'stdio-v2', version: '1' },
    { capabilities: UI_CAPABILITIES, versionNegotiation: { mode: 'auto' } },
  );
  await v2.connect(transport);
  hosted = await rawV2(h.mcpUrl, await h.token({ upstreamToken: token, upstreamUserId: USER_ID }));
});

afterAll(async () => {
  await v2?.close();
  await hosted?.close();
  await h?.close();
  cwd.remove();
});

/** A result as the model reads it: everything but what differs by design between two calls. */
const comparable = (r: Json) => ({
  content: r.content,
  structuredContent: r.structuredContent,
  isError: r.isError,
});

describe('the v2 client over stdio (the real bin, a child process)', () => {
  it('lists every tool, with views for a client that declared them, and the resources and prompts', async () => {
    const { tools } = await v2.listTools();
    expect(tools).toHaveLength(ALL_TOOLS.length);
    expect(tools.filter((t: Json) => t._meta?.ui?.resourceUri).length).toBeGreaterThan(0);
    expect((await v2.listResourceTemplates()).resourceTemplates.length).toBeGreaterThan(0);
    expect((await v2.listPrompts()).prompts.length).toBeGreaterThan(0);
  });

  it('answers for the same upstream record exactly as the hosted server does', async () => {
    const made = await hosted.callTool({ name: 'submit_keyword_search', arguments: { query: '#stdio' } });
    const id = made.structuredContent.search_id;
    expect(id).toBeTypeOf('number');
    const calls = [
      { name: 'get_keyword_search', arguments: { search_id: id } },
      { name: 'get_keyword_search_posts_data', arguments: { search_id: id, limit: 5 } },
      { name: 'get_keyword_searches', arguments: {} },
      { name: 'usage', arguments: {} },
    ];
    for (const call of calls) {
      const local = await v2.callTool(call);
      expect(local.isError, `${call.name}: ${JSON.stringify(local.content)}`).toBeFalsy();
      expect(comparable(local), call.name).toEqual(comparable(await hosted.callTool(call)));
    }
    const uri = `social-intel://keyword-searches/${id}`;
    expect(await v2.readResource({ uri })).toEqual(await hosted.readResource({ uri }));
    // Upstream saw the configured user id.
    const { requests } = await h.control('GET', `/credentials/${token}/requests`);
    expect((requests as Array<{ user_id: string | null }>).some((r) => r.user_id === USER_ID)).toBe(true);
  });

  it('retries a failing upstream read as often as the hosted server does (one retry policy)', async () => {
    // The upstream answers 503 to the next two reads of /api/usage: both servers retry, alike.
    const attempts = async (client: { callTool(c: Json): Promise<Json> }) => {
      await h.control('DELETE', `/credentials/${token}/requests`);
      await h.control('PUT', '/faults', {
        token,
        error_rate: 1,
        error_status: 503,
        path_prefix: '/api/usage',
        remaining: 2,
      });
      const result = await client.callTool({ name: 'usage', arguments: {} });
      await h.control('DELETE', `/faults?token=${token}`);
      const { requests } = await h.control('GET', `/credentials/${token}/requests`);
      const reads = (requests as Array<{ path: string; status: number | null }>).filter((r) =>
        r.path.startsWith('/api/usage'),
      );
      return { isError: result.isError ?? false, statuses: reads.map((r) => r.status) };
    };
    const local = await attempts(v2);
    expect(local).toEqual({ isError: false, statuses: [503, 503, 200] });
    expect(await attempts(hosted)).toEqual(local);
  });

  it('an input error is the same tool error as on /mcp', async () => {
    const call = { name: 'get_keyword_search', arguments: { search_id: 'twelve' } };
    const local = await v2.callTool(call);
    expect(local.isError).toBe(true);
    expect(comparable(local)).toEqual(comparable(await hosted.callTool(call)));
  });

  it('logs to standard error (never the token), and writes no file', async () => {
    // Log lines are written in batches (a quarter of a second): wait for the tool call's.
    await vi.waitFor(() => expect(v2Logs).toMatch(/"msg":"tool call"/), { timeout: 5_000, interval: 50 });
    expect(v2Logs).not.toContain(token);
    expect(readdirSync(cwd.path)).toEqual([]);
  });
});

describe('the v1 client over stdio', () => {
  it('lists and calls tools (the 2025 era: initialize first)', async () => {
    const client = new ClientV1({ name: 'stdio-v1', version: '1' });
    await client.connect(
      new StdioV1({ command: process.execPath, args: [BIN, 'stdio'], env, stderr: 'ignore' }),
    );
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(ALL_TOOLS.length);
    expect(tools.some((t) => t._meta)).toBe(false);
    const usage = await client.callTool({ name: 'usage', arguments: {} });
    expect(usage.isError).toBeFalsy();
    expect(comparable(usage)).toEqual(comparable(await hosted.callTool({ name: 'usage', arguments: {} })));
    await client.close();
  });
});

/** The child run to its end with `input` on standard input. */
function run(extraEnv: Record<string, string>, input: string[] = []) {
  const child = spawn(process.execPath, [BIN, 'stdio'], {
    cwd: cwd.path,
    env: { PATH: process.env.PATH ?? '', ...extraEnv },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    stdout += d;
  });
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
  });
  for (const line of input) child.stdin.write(`${line}\n`);
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.once('close', (code) => resolve({ code, stdout, stderr })),
  );
  return { child, done, output: () => stdout, errors: () => stderr };
}

describe('credentials', () => {
  it('a token upstream rejects: one line on standard error, exit 1, nothing on standard output', async () => {
    const { done } = run({ ...env, UPSTREAM_TOKEN: 'sbx_not_a_real_token' });
    const r = await done;
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      'social-intel-mcp: stdio: the upstream API rejected UPSTREAM_TOKEN (HTTP 401): correct it where your MCP client starts this server\n',
    );
  });

  it('missing credentials for the real API: one line naming both variables, exit 1', async () => {
    const { UPSTREAM_TOKEN: _t, UPSTREAM_USER_ID: _u, ...without } = env;
    const r = await run(without).done;
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      'social-intel-mcp: stdio: invalid configuration: UPSTREAM_TOKEN: missing; set it to your API token; UPSTREAM_USER_ID: missing; set it to your user id\n',
    );
  });
});

describe('the try-out: no variables at all', () => {
  let child: ChildProcessWithoutNullStreams;
  afterAll(() => {
    if (child.exitCode === null) child.kill();
  });

  it('serves the built-in sandbox with its ready credential; standard output holds only protocol messages', async () => {
    const lines = [
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'raw', version: '1' },
        },
      },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'usage', arguments: {} } },
    ].map((m) => JSON.stringify(m));
    const started = run({ SANDBOX_SPEED: 'instant' }, lines);
    child = started.child;
    const deadline = Date.now() + 30_000;
    while (!started.output().includes('"id":2') && Date.now() < deadline && child.exitCode === null)
      await new Promise((r) => setTimeout(r, 50));
    child.stdin.end();
    const r = await started.done;
    expect(r.code).toBe(0);
    const messages = r.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Json);
    expect(messages.map((m) => [m.jsonrpc, m.id])).toEqual([
      ['2.0', 1],
      ['2.0', 2],
    ]);
    expect(messages[1].result.isError).toBeFalsy();
    expect(messages[1].result.structuredContent).toHaveProperty('searches_count');
    expect(r.stderr).toMatch(/sandbox mode/);
    expect(readdirSync(cwd.path)).toEqual([]);
  });
});
