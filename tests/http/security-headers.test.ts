import type { ServerResponse } from 'node:http';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SECURITY_HEADERS, securityHeaders } from '../../src/http/security.js';
import { listen, type RunningServer } from '../../src/server.js';

/** A route that sets its own CSP (as the consent page does) next to one that sets nothing. */
function appUnderTest() {
  const app = new Hono();
  app.use(securityHeaders());
  app.get('/plain', (c) => c.json({ ok: true }));
  app.get('/own-csp', (c) => c.text('x', 200, { 'Content-Security-Policy': "form-action 'self'" }));
  app.get('/raw', () => new Response('raw', { headers: { 'X-Frame-Options': 'SAMEORIGIN' } }));
  // What the response holds before its head is written, and a head written by hand in node:http's
  // raw form (names and values in one list), as a route answering on Node's response itself does.
  app.get('/held', (c) => {
    const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
    return c.json({ held: outgoing?.getHeaderNames() ?? null });
  });
  app.get('/by-hand', (c) => {
    const outgoing = (c.env as { outgoing: ServerResponse }).outgoing;
    outgoing.writeHead(200, ['x-frame-options', 'SAMEORIGIN', 'Content-Type', 'text/plain']);
    outgoing.end('by hand');
    return new Response(null, { headers: { 'x-hono-already-sent': '1' } });
  });
  return app;
}

function expectDefaults(headers: Headers, except: string[] = []) {
  for (const [name, value] of SECURITY_HEADERS)
    if (!except.includes(name)) expect(headers.get(name), name).toBe(value);
}

describe('security headers over Node (set on the ServerResponse, the route wins)', () => {
  let server: RunningServer;
  let base: string;
  beforeAll(async () => {
    server = await listen(appUnderTest(), 0, '127.0.0.1');
    base = `http://127.0.0.1:${server.port}`;
  });
  afterAll(() => server.close(100));

  it('sends every default on a response that set none', async () => {
    const res = await fetch(`${base}/plain`);
    expectDefaults(res.headers);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it("keeps a route's own header, once, and the other defaults", async () => {
    const res = await fetch(`${base}/own-csp`);
    expect(res.headers.get('content-security-policy')).toBe("form-action 'self'");
    expectDefaults(res.headers, ['Content-Security-Policy']);
    const raw = await fetch(`${base}/raw`);
    expect(raw.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    expectDefaults(raw.headers, ['X-Frame-Options']);
    const byHand = await fetch(`${base}/by-hand`);
    expect(await byHand.text()).toBe('by hand');
    expect(byHand.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    expectDefaults(byHand.headers, ['X-Frame-Options']);
  });

  it('adds the defaults when the head is written, so an open response holds none of them meanwhile', async () => {
    const res = await fetch(`${base}/held`);
    expect(((await res.json()) as { held: string[] }).held).toEqual([]);
    expectDefaults(res.headers);
  });
});

describe('security headers without Node (app.request: set on the web Response)', () => {
  it('sets the defaults and keeps what the route set', async () => {
    const app = appUnderTest();
    expectDefaults((await app.request('/plain')).headers);
    const own = await app.request('/own-csp');
    expect(own.headers.get('content-security-policy')).toBe("form-action 'self'");
    expectDefaults(own.headers, ['Content-Security-Policy']);
  });
});
