import { describe, expect, it } from 'vitest';
import { rawExchange } from '../helpers/gateway.js';
import { hostileInput, LIMITS } from '../helpers/hostile-input.js';

/**
 * The socket limits against hostile clients: an oversized header (431) or body (413), slowloris
 * headers, a silent connection and an unfinished body are cut off within the limits, while a slow
 * tool call is not.
 */
const hi = hostileInput();

describe('limits and timeouts', () => {
  it('refuses an oversized header with 431', async () => {
    const head = `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`;
    const { response } = await rawExchange(hi.port, head, { giveUpMs: 5_000 });
    expect(response).toMatch(/^HTTP\/1\.1 431/);
  });

  it('refuses an oversized body with 413, declared or chunked', async () => {
    const big = 'a'.repeat(hi.server.config.bodyLimitBytes + 10);
    for (const path of ['/token', '/mcp', '/register', '/sign-in']) {
      const declared = await rawExchange(
        hi.port,
        `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nAuthorization: Bearer ${hi.bearer}\r\nContent-Length: ${big.length}\r\n\r\n${big}`,
        { giveUpMs: 5_000 },
      );
      expect(declared.response, path).toMatch(/^HTTP\/1\.1 413/);
      const chunk = (s: string) => `${s.length.toString(16)}\r\n${s}\r\n`;
      const chunked = await rawExchange(
        hi.port,
        `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nAuthorization: Bearer ${hi.bearer}\r\nTransfer-Encoding: chunked\r\n\r\n${chunk(big.slice(0, 600_000))}${chunk(big.slice(600_000))}0\r\n\r\n`,
        { giveUpMs: 5_000 },
      );
      expect(chunked.response, path).toMatch(/^HTTP\/1\.1 413/);
    }
  });

  it('cuts off a client sending its headers a byte at a time (slowloris)', async () => {
    const { response, closedAfterMs, closedByServer } = await rawExchange(hi.port, 'G', {
      drip: `ET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ${'b'.repeat(200)}`,
      dripMs: 50,
      giveUpMs: 8_000,
    });
    expect(closedByServer).toBe(true);
    expect(response).toMatch(/^HTTP\/1\.1 408/);
    expect(closedAfterMs).toBeLessThan(LIMITS.headersTimeoutMs + 1_000);
  });

  it('closes a connection that never sends anything', async () => {
    const { closedAfterMs, closedByServer } = await rawExchange(hi.port, '', { giveUpMs: 8_000 });
    expect(closedByServer).toBe(true);
    expect(closedAfterMs).toBeLessThan(LIMITS.requestTimeoutMs + 1_000);
  });

  it('cuts off a body that never finishes, on every kind of route', async () => {
    for (const [path, type] of [
      ['/token', 'application/x-www-form-urlencoded'],
      ['/mcp', 'application/json'],
      ['/register', 'application/json'],
      ['/sign-up', 'application/x-www-form-urlencoded'],
    ] as const) {
      const { closedAfterMs, closedByServer } = await rawExchange(
        hi.port,
        `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: ${type}\r\nAuthorization: Bearer ${hi.bearer}\r\nContent-Length: 1000\r\n\r\n{"a":`,
        { drip: ' ', dripMs: 200, giveUpMs: 8_000 },
      );
      expect(closedByServer, path).toBe(true);
      expect(closedAfterMs, path).toBeLessThan(LIMITS.requestTimeoutMs + 1_000);
    }
    expect((await fetch(`${hi.server.url}/healthz`)).status).toBe(200);
    // The client went away: an abort worth a line, not an error of ours.
    expect(hi.server.logs.filter((l) => l.msg === 'unhandled error')).toEqual([]);
  });

  it('does not cut off a tool call whose answer takes longer than the request timeout', async () => {
    await fetch(`${hi.sandbox.searchUrl}/__sandbox/faults`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ latency_ms: LIMITS.requestTimeoutMs + 500 }),
    });
    try {
      const started = Date.now();
      const res = await fetch(`${hi.server.url}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${hi.bearer}`,
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'usage', arguments: {} },
        }),
      });
      const text = await res.text();
      expect(res.status).toBe(200);
      expect(Date.now() - started).toBeGreaterThan(LIMITS.requestTimeoutMs);
      expect(text).toContain('"result"');
    } finally {
      await fetch(`${hi.sandbox.searchUrl}/__sandbox/faults`, { method: 'DELETE' });
    }
  });
});
