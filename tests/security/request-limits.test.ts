import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../../src/http/json-depth.js';
import { MAX_ID_LENGTH, MAX_META_BYTES } from '../../src/mcp/request-limits.js';
import { issueTestToken } from '../helpers/grants.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { rpc, TASKS_EXTENSION } from '../helpers/tasks.js';

/**
 * The limits a request to /mcp meets before anything reads or keeps it (docs/security.md, "Memory per
 * request"), each answered in the form its sender reads and naming the limit. What they bound is
 * measured in request-memory.test.ts.
 */
let server: TestServer;
let access: string;
beforeAll(async () => {
  server = await startTestServer();
  access = (await issueTestToken(server, { upstreamToken: 'limits-token' })).accessToken;
});
afterAll(() => server.close());

async function post(body: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${server.url}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${access}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
      ...headers,
    },
    body,
  });
  const text = await res.text();
  // A 2025-era answer may come as an event stream of one message.
  const json = [...text.matchAll(/^data: (.*)$/gm)].at(-1)?.[1] ?? text;
  return {
    status: res.status,
    body: JSON.parse(json) as { error?: { code: number; message: string }; id?: unknown },
  };
}

describe('limits on a request to /mcp', () => {
  it('answers a body over the limit with a JSON-RPC 413 naming the limit', async () => {
    const { status, body } = await post('x'.repeat(server.config.bodyLimitBytes + 1));
    expect(status).toBe(413);
    expect(body.error?.code).toBe(-32600);
    expect(body.error?.message).toContain(`${server.config.bodyLimitBytes} bytes`);
  });

  it('answers a browser form over the limit with a page naming the limit', async () => {
    const res = await fetch(`${server.url}/sign-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
      body: `email=${'x'.repeat(server.config.bodyLimitBytes)}`,
    });
    expect(res.status).toBe(413);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await res.text()).toContain(`${server.config.bodyLimitBytes} bytes`);
  });

  it('refuses JSON nested deeper than the limit before parsing it', async () => {
    const deep = 200_000;
    const { status, body } = await post(`${'['.repeat(deep)}${']'.repeat(deep)}`);
    expect(status).toBe(400);
    expect(body.error?.message).toContain(`${MAX_JSON_DEPTH} levels`);
    // Brackets inside strings are text, not nesting.
    const inString = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'ping',
      params: { _meta: { x: '['.repeat(500) } },
    });
    expect((await post(inString)).status).toBe(200);
  });

  it('refuses a _meta larger than its limit, with the request id', async () => {
    const meta = { note: 'x'.repeat(MAX_META_BYTES) };
    const { status, body } = await post(
      JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/list', params: { _meta: meta } }),
    );
    expect(status).toBe(400);
    expect(body.error?.code).toBe(-32602);
    expect(body.error?.message).toContain(`${MAX_META_BYTES} bytes`);
    expect(body.id).toBe(5);
    const fits = { note: 'x'.repeat(MAX_META_BYTES - 100) };
    const padded = JSON.stringify({ jsonrpc: '2.0', id: 6, method: 'tools/list', params: { _meta: fits } });
    expect((await post(padded)).status).toBe(200);
  });

  it('refuses a JSON-RPC id longer than its limit', async () => {
    const id = 'i'.repeat(MAX_ID_LENGTH + 1);
    const { status, body } = await post(
      JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/list', params: {} }),
    );
    expect(status).toBe(400);
    expect(body.error?.code).toBe(-32600);
    expect(body.id).toBeNull();
    expect(body.error?.message).toContain(`${MAX_ID_LENGTH} characters`);
  });

  it('answers a task id of any other shape "not found" in both eras', async () => {
    const taskId = `sim_tk_${'x'.repeat(5_000)}`;
    const declared = {
      'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS_EXTENSION]: {} } },
    };
    for (const method of ['tasks/get', 'tasks/cancel']) {
      const legacy = await post(
        JSON.stringify({ jsonrpc: '2.0', id: 9, method, params: { taskId, _meta: declared } }),
      );
      expect(legacy.body.error?.message, method).toMatch(/not found/i);
      const modern = await rpc(`${server.url}/mcp`, access, method, { taskId });
      expect(modern.message?.error?.message, method).toMatch(/not found/i);
    }
  });
});
