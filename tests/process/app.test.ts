import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueTestToken } from '../helpers/grants.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
  // A route that fails, to see what a 500 looks like from outside.
  server.app.get('/__test/boom', () => {
    throw new Error('internal detail: /etc/secret-path');
  });
});
afterAll(() => server.close());

describe('foundation routes', () => {
  it('serves the home page with the MCP URL and the sandbox notice', async () => {
    const res = await fetch(`${server.url}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await res.text();
    expect(html).toContain(`${server.url}/mcp`);
    expect(html).toContain('Sandbox mode');
  });

  it('answers /healthz and /readyz', async () => {
    expect(await (await fetch(`${server.url}/healthz`)).json()).toEqual({ status: 'ok' });
    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready' });
  });

  it('answers unknown routes with a JSON 404 to API paths and to clients asking for JSON', async () => {
    const res = await fetch(`${server.url}/nope`, { headers: { accept: 'application/json' } });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: 'not_found' });
    // Under an API path the answer is JSON whatever Accept says (tests/web/pages.test.ts: the HTML page).
    const api = await fetch(`${server.url}/mcp/nope`, { headers: { accept: 'text/html' } });
    expect(api.status).toBe(404);
    expect(await api.json()).toMatchObject({ error: 'not_found' });
  });

  it('answers a wrong method with a JSON 405 and Allow', async () => {
    const res = await fetch(`${server.url}/healthz`, { method: 'DELETE' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toContain('GET');
    expect(await res.json()).toMatchObject({ error: 'method_not_allowed' });
  });

  it('refuses an oversize body with 413 before any handler reads it', async () => {
    const res = await fetch(`${server.url}/healthz`, {
      method: 'POST',
      body: 'x'.repeat(server.config.bodyLimitBytes + 1),
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ error: 'payload_too_large' });
  });

  it('turns a thrown error into a JSON 500 without internals, and logs it', async () => {
    const res = await fetch(`${server.url}/__test/boom`);
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(text).not.toContain('/etc/secret-path');
    expect(text).not.toMatch(/at .*\.ts/);
    const body = JSON.parse(text);
    expect(body.error).toBe('internal_error');
    expect(body.requestId).toBe(res.headers.get('x-request-id'));
    expect(server.logs.some((l) => l.msg === 'unhandled error' && l.requestId === body.requestId)).toBe(true);
  });

  it('sets the security headers on every response', async () => {
    for (const path of ['/', '/healthz', '/nope']) {
      const res = await fetch(`${server.url}${path}`);
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("default-src 'none'");
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
      expect(res.headers.get('x-frame-options')).toBe('DENY');
    }
  });

  it('logs one JSON line per request with its request id, and never the query string', async () => {
    const res = await fetch(`${server.url}/healthz?code=sim_ac_secretvalue`);
    const id = res.headers.get('x-request-id');
    const line = server.logs.find((l) => l.requestId === id && l.msg === 'request');
    expect(line).toMatchObject({ method: 'GET', path: '/healthz', status: 200 });
    expect(JSON.stringify(server.logs)).not.toContain('sim_ac_secretvalue');
  });

  it("gives the MCP handler's own responses a request id and the security headers too", async () => {
    const { accessToken } = await issueTestToken(server, { upstreamToken: 'sbx_unused_by_tools_list' });
    const res = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${accessToken}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(200);
    await res.text();
    const id = res.headers.get('x-request-id') ?? '';
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(server.logs.find((l) => l.requestId === id && l.msg === 'request')).toMatchObject({
      path: '/mcp',
    });
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('keeps a plain X-Request-Id the client sent and replaces anything else', async () => {
    const kept = await fetch(`${server.url}/healthz`, { headers: { 'x-request-id': 'proxy-id-123' } });
    expect(kept.headers.get('x-request-id')).toBe('proxy-id-123');
    const replaced = await fetch(`${server.url}/healthz`, { headers: { 'x-request-id': 'bad id <script>' } });
    expect(replaced.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('serves the stylesheet from its own origin', async () => {
    const res = await fetch(`${server.url}/assets/style.css`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/css/);
  });
});
