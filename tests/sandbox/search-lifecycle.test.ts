import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../helpers/sandbox-process.js';

let sbx: Sandbox;
let hookServer: Server;
let hookUrl = '';
const received: { headers: IncomingMessage['headers']; body: unknown }[] = [];

beforeAll(async () => {
  sbx = await startSandbox();
  hookServer = createServer((req, res) => {
    let data = '';
    req.on('data', (c) => {
      data += c;
    });
    req.on('end', () => {
      received.push({ headers: req.headers, body: JSON.parse(data) });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => hookServer.listen(0, '127.0.0.1', resolve));
  hookUrl = `http://127.0.0.1:${(hookServer.address() as AddressInfo).port}/hook`;
});
afterAll(async () => {
  await sbx?.stop();
  await new Promise((resolve) => hookServer?.close(resolve));
});

async function details(token: string, id: number, kind = 'keyword_search') {
  const res = await sbx.search('GET', `/api/iq/${kind}/${id}`, { token });
  expect(res.status).toBe(200);
  return res.body;
}

async function waitFor<T>(fn: () => Promise<T | undefined>, ms: number): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > until) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('search lifecycle at demo speed, real time', () => {
  it('a keyword search goes pending → started → finished in a few seconds with full results', async () => {
    const token = await sbx.credential({ speed: 'demo' });
    const created = await sbx.search('POST', '/api/iq/keyword_search', {
      token,
      body: { query: 'demo speed' },
    });
    const seen: string[] = [];
    const started = Date.now();
    const final = await waitFor(async () => {
      const d = await details(token, created.body.id);
      if (seen.at(-1) !== d.status) seen.push(d.status);
      return d.status === 'finished' ? d : undefined;
    }, 10_000);
    expect(seen).toEqual(['pending', 'started', 'finished']);
    expect(Date.now() - started).toBeLessThan(8_000);
    expect(final.results.posts.twitter.length).toBeGreaterThan(0);
  }, 15_000);
});

describe('search lifecycle with the frozen clock', () => {
  beforeAll(async () => {
    await sbx.control('POST', '/clock', { freeze: true });
  });
  afterAll(async () => {
    await sbx.control('POST', '/clock', { freeze: false });
  });

  it('progress: status_percentage as a string, status_text per stage, tweet_preview fills', async () => {
    const token = await sbx.credential({ speed: 'demo' });
    const created = await sbx.search('POST', '/api/iq/keyword_search', {
      token,
      body: { query: 'progress check' },
    });
    const d0 = await details(token, created.body.id);
    expect(d0).toMatchObject({
      status: 'pending',
      status_percentage: '0',
      status_text: 'Search queued',
      results: null,
    });
    expect(d0.tweet_preview).toEqual([]);
    await sbx.advance(1_000 + 900);
    const d1 = await details(token, created.body.id);
    expect(d1.status).toBe('started');
    expect(d1.status_percentage).toBe('30');
    expect(d1.status_text).toMatch(/^Collecting posts from (twitter|reddit|bluesky|youtube)$/);
    expect(d1.tweet_preview.length).toBeGreaterThan(0);
    expect(d1.tweet_preview.length).toBeLessThan(10);
    expect(d1.results).toBeNull();
    const empty = await sbx.search('GET', `/api/iq/keyword_search/${created.body.id}/posts_data`, { token });
    expect(empty.body.posts).toEqual([]);
    await sbx.advance(1_800);
    expect((await details(token, created.body.id)).status_text).toBe('Analyzing posts');
    await sbx.advance(300);
    const d2 = await details(token, created.body.id);
    expect(d2).toMatchObject({
      status: 'finished',
      status_percentage: '100',
      status_text: 'Search completed',
    });
    expect(d2.tweet_preview).toHaveLength(10);
    expect(d2.results).not.toBeNull();
  });

  it('results_lag_ms fault: finished without results for a while', async () => {
    const token = await sbx.credential();
    await sbx.control('PUT', '/faults', { token, results_lag_ms: 30_000 });
    const created = await sbx.search('POST', '/api/iq/keyword_search', { token, body: { query: 'lagging' } });
    const d0 = await details(token, created.body.id);
    expect(d0.status).toBe('finished');
    expect(d0.results).toBeNull();
    await sbx.advance(29_999);
    expect((await details(token, created.body.id)).results).toBeNull();
    await sbx.advance(1);
    expect((await details(token, created.body.id)).results).not.toBeNull();
    await sbx.control('DELETE', `/faults?token=${token}`);
  });

  it('fail_searches fault: a search ends failed with a status_text saying so', async () => {
    const token = await sbx.credential();
    await sbx.control('PUT', '/faults', { token, fail_searches: true });
    const created = await sbx.search('POST', '/api/iq/user_search', {
      token,
      body: { query: 'x', platform: 'twitter' },
    });
    const d = await details(token, created.body.id, 'user_search');
    expect(d.status).toBe('failed');
    expect(d.status_text).toMatch(/^Search failed/);
    expect(d.results).toBeNull();
    await sbx.control('DELETE', `/faults?token=${token}`);
  });

  it('expert search: running → completed', async () => {
    const token = await sbx.credential({ producer: true, speed: 'demo' });
    const created = await sbx.search('POST', '/api/search', { token, body: { query: 'wetland ecologists' } });
    const d0 = await sbx.search('GET', `/api/search/${created.body.id}`, { token });
    expect(d0.body.status).toBe('running');
    expect(d0.body.expert_results).toBeNull();
    await sbx.advance(3_000);
    const d1 = await sbx.search('GET', `/api/search/${created.body.id}`, { token });
    expect(d1.body.status).toBe('completed');
    expect(d1.body.expert_results.length).toBeGreaterThan(0);
  });
});

describe('webhook', () => {
  it('by default a completed search is not POSTed to a loopback return_url: refused and recorded', async () => {
    // The emulator as `npm run sandbox` starts it: a return_url is anyone's text, so webhooks go only to
    // public addresses (deliveries to a receiver are covered in webhooks.test.ts with that rule lifted).
    const token = await sbx.credential();
    await sbx.search('PUT', '/api/setup', { token, body: { return_url: hookUrl } });
    const created = await sbx.search('POST', '/api/iq/keyword_search', { token, body: { query: 'hooked' } });
    const delivery = await waitFor(async () => {
      const res = await sbx.control('GET', `/webhooks?token=${token}`);
      const d = res.body.deliveries[0];
      return d?.status === null && d?.error === null ? undefined : d;
    }, 5_000);
    expect(delivery).toMatchObject({
      kind: 'keyword',
      search_id: created.body.id,
      url: hookUrl,
      status: null,
    });
    expect(delivery.error).toMatch(/not a public address/);
    expect(received.find((r) => (r.body as { id: number }).id === created.body.id)).toBeUndefined();
  });

  it('a failing receiver is recorded with its error; no return_url → no delivery', async () => {
    const token = await sbx.credential();
    await sbx.search('PUT', '/api/setup', { token, body: { return_url: 'http://127.0.0.1:9/closed' } });
    await sbx.search('POST', '/api/iq/keyword_search', { token, body: { query: 'nobody home' } });
    const delivery = await waitFor(async () => {
      const d = (await sbx.control('GET', `/webhooks?token=${token}`)).body.deliveries[0];
      return d?.error === null ? undefined : d;
    }, 5_000);
    expect(delivery.status).toBeNull();
    expect(typeof delivery.error).toBe('string');
    const quiet = await sbx.credential();
    await sbx.search('POST', '/api/iq/keyword_search', { token: quiet, body: { query: 'silent' } });
    expect((await sbx.control('GET', `/webhooks?token=${quiet}`)).body.deliveries).toEqual([]);
  });
});
