import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { WEBHOOK_DELIVERY_LIMIT } from '../../src/sandbox/constants.js';
import { type InProc, inProcSandbox } from '../helpers/sandbox-inproc.js';

/**
 * Webhook bookkeeping: every search leaves the pending set at its end whether or not anything is sent
 * (the return_url is read then; one set later sends nothing for it), and the delivery record is bounded
 * to the most recent WEBHOOK_DELIVERY_LIMIT. Webhooks go to public addresses only and follow no
 * redirect; these tests' receivers listen on loopback, so most of them turn on the test-only
 * `webhooksToPrivateAddresses`.
 */

const T0 = Date.parse('2026-06-01T12:00:00Z');
const CLOSED = 'http://127.0.0.1:9/hook';

interface Delivery {
  id: number;
  token: string;
  search_id: number;
  status: number | null;
  error: string | null;
  payload: { id: number; results: unknown };
}

/** A receiver that answers 204 and resolves `next(n)` once n bodies have arrived. */
let receiver: Server;
let hookUrl: string;
const bodies: string[] = [];
const waiters: { n: number; resolve: () => void }[] = [];
const received = (n: number) =>
  new Promise<void>((resolve) => {
    if (bodies.length >= n) resolve();
    else waiters.push({ n, resolve });
  });
beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => {
      body += d.toString();
    });
    req.on('end', () => {
      bodies.push(body);
      res.statusCode = 204;
      res.end();
      for (const w of waiters.filter((x) => bodies.length >= x.n)) w.resolve();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
});
afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

let s: InProc;
let token: string;
beforeEach(() => {
  bodies.length = 0;
  s = inProcSandbox(T0, 'demo', { webhooksToPrivateAddresses: true });
  token = s.app.sandbox.store.createCredential({ credits: 10_000 }).token;
});
afterEach(() => s.dispose());

const setReturnUrl = (url: string, who = token) =>
  s.req('PUT', '/api/setup', { token: who, userId: 'u', body: { return_url: url } });
const keyword = async (query: string, who = token, extra: object = {}) => {
  const res = await s.req('POST', '/api/iq/keyword_search', {
    token: who,
    userId: 'u',
    body: { query, ...extra },
  });
  return (JSON.parse(res.text) as { id: number }).id;
};
const settle = () => s.req('GET', '/api/iq/credits', { token, userId: 'u' });
const deliveries = async (query = '') =>
  ((await s.control('GET', `/webhooks${query}`)).body as { deliveries: Delivery[] }).deliveries;

describe('pending webhooks', () => {
  it('searches leave the pending set when they finish; the return_url is the one set at that moment', async () => {
    const store = s.app.sandbox.store;
    await keyword('no url when it finishes');
    expect(store.pendingWebhooks.size).toBe(1);
    s.advance(5_000);
    await settle();
    expect(store.pendingWebhooks.size).toBe(0);
    // Setting a return_url afterwards sends nothing for a search that already finished.
    await setReturnUrl(hookUrl);
    s.advance(60_000);
    await settle();
    expect(await deliveries()).toEqual([]);

    // Set after creation but before the end: the search is delivered when it finishes.
    const other = store.createCredential({}).token;
    const late = await keyword('url set while it runs', other);
    await setReturnUrl(hookUrl, other);
    s.advance(5_000);
    await settle();
    expect(store.pendingWebhooks.size).toBe(0);
    await received(1);
    const sent = await deliveries();
    expect(sent.map((d) => [d.token, d.search_id])).toEqual([[other, late]]);
    expect(bodies[0]).toBe(JSON.stringify(sent[0]?.payload));
  });

  it('failed searches leave without a delivery; a results lag keeps a search pending until results exist', async () => {
    const store = s.app.sandbox.store;
    await setReturnUrl(hookUrl);
    await s.control('PUT', '/faults', { token, fail_searches: true });
    await keyword('doomed');
    await s.control('PUT', '/faults', { token, results_lag_ms: 10_000 });
    const lagged = await keyword('lagged');
    const fb = await s.req('POST', '/api/iq/user_search', {
      token,
      userId: 'u',
      body: { query: 'page', platform: 'facebook' },
    });
    const noResults = (JSON.parse(fb.text) as { id: number }).id;
    expect(store.pendingWebhooks.size).toBe(3);
    s.advance(5_000);
    await settle();
    // The failed one is gone; facebook has no results to wait for; the keyword search waits.
    expect(store.pendingWebhooks.size).toBe(1);
    await received(1);
    s.advance(10_000);
    await settle();
    expect(store.pendingWebhooks.size).toBe(0);
    await received(2);
    const sent = await deliveries();
    expect(sent.map((d) => d.search_id)).toEqual([noResults, lagged]);
    expect(sent[0]?.payload.results).toBeNull();
    expect(sent[1]?.payload.results).not.toBeNull();
    expect(bodies).toEqual(sent.map((d) => JSON.stringify(d.payload)));
  });
});

describe('delivery record', () => {
  it(`keeps the most recent ${WEBHOOK_DELIVERY_LIMIT} deliveries, all credentials together`, async () => {
    const s2 = inProcSandbox(T0, 'instant');
    try {
      const store = s2.app.sandbox.store;
      const loud = store.createCredential({ credits: 10_000 }).token;
      const other = store.createCredential({ credits: 10_000 }).token;
      for (const t of [loud, other])
        await s2.req('PUT', '/api/setup', { token: t, userId: 'u', body: { return_url: CLOSED } });
      const total = WEBHOOK_DELIVERY_LIMIT + 5;
      for (let i = 0; i < total; i++) {
        // Same inputs every time: one cached dataset serves every payload.
        await s2.req('POST', '/api/iq/user_search', {
          token: i < 3 ? other : loud,
          userId: 'u',
          body: { query: 'page', platform: 'facebook', max_post: 1 },
        });
      }
      await s2.req('GET', '/api/iq/credits', { token: loud, userId: 'u' }); // settles the last one
      expect(store.deliveries.length).toBe(WEBHOOK_DELIVERY_LIMIT);
      const all = ((await s2.control('GET', '/webhooks')).body as { deliveries: Delivery[] }).deliveries;
      expect(all.map((d) => d.id)).toEqual(Array.from({ length: WEBHOOK_DELIVERY_LIMIT }, (_, i) => i + 6));
      expect(all.at(-1)?.payload.id).toBe(total);
      // The other credential's three were the oldest: forgotten.
      expect(s2.app.sandbox.store.deliveries.filter((d) => d.token === other)).toEqual([]);
      const mine = ((await s2.control('GET', `/webhooks?token=${other}`)).body as { deliveries: Delivery[] })
        .deliveries;
      expect(mine).toEqual([]);
      const loudOnes = (
        (await s2.control('GET', `/webhooks?token=${loud}`)).body as { deliveries: Delivery[] }
      ).deliveries;
      expect(loudOnes.length).toBe(WEBHOOK_DELIVERY_LIMIT);
    } finally {
      s2.dispose();
    }
  });
});

describe('where a webhook may go', () => {
  /** A search finished on a credential whose return_url is `url`; its delivery once it has an outcome. */
  async function deliveredTo(sandbox: InProc, url: string): Promise<Delivery & { url: string }> {
    const who = sandbox.app.sandbox.store.createCredential({ credits: 10_000 }).token;
    await sandbox.req('PUT', '/api/setup', { token: who, userId: 'u', body: { return_url: url } });
    await sandbox.req('POST', '/api/iq/user_search', {
      token: who,
      userId: 'u',
      body: { query: 'page', platform: 'facebook', max_post: 1 },
    });
    sandbox.advance(60_000);
    await sandbox.req('GET', '/api/iq/credits', { token: who, userId: 'u' });
    for (;;) {
      const [d] = (
        (await sandbox.control('GET', `/webhooks?token=${who}`)).body as {
          deliveries: (Delivery & { url: string })[];
        }
      ).deliveries;
      if (d && (d.status !== null || d.error !== null)) return d;
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  it('sends nothing to loopback, private or link-local addresses by default', async () => {
    const strict = inProcSandbox(T0, 'instant');
    try {
      for (const url of [
        hookUrl,
        hookUrl.replace('127.0.0.1', 'localhost'),
        hookUrl.replace('127.0.0.1', '[::1]'),
        hookUrl.replace('127.0.0.1', '[::ffff:127.0.0.1]'),
        hookUrl.replace('127.0.0.1', '0.0.0.0'),
        'http://10.0.0.1/hook',
        'http://192.168.1.1/hook',
        'http://169.254.169.254/latest/meta-data/',
        'http://2130706433/hook',
      ]) {
        const d = await deliveredTo(strict, url);
        expect(d.status, url).toBeNull();
        expect(d.error, url).toMatch(/not a public address/);
      }
      expect(bodies).toEqual([]);
    } finally {
      strict.dispose();
    }
  });

  it("follows no redirect: a 302 is the delivery's answer", async () => {
    const redirecting = createServer((_req, res) => {
      res.writeHead(302, { location: hookUrl });
      res.end();
    });
    await new Promise<void>((resolve) => redirecting.listen(0, '127.0.0.1', resolve));
    try {
      const port = (redirecting.address() as AddressInfo).port;
      const d = await deliveredTo(s, `http://127.0.0.1:${port}/moved`);
      expect(d.status).toBe(302);
      expect(bodies).toEqual([]);
    } finally {
      await new Promise<void>((resolve) => redirecting.close(() => resolve()));
    }
  });
});
