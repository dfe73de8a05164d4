import { createServer as createHttpServer } from 'node:http';
import { type AddressInfo, connect, createServer, type Socket } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { type SandboxServer, startSandboxServer } from '../../src/sandbox/server.js';
import { createUpstreamClient, type UpstreamClientOptions } from '../../src/upstream/client.js';
import { parseRetryAfter, UpstreamError } from '../../src/upstream/errors.js';
import type { Json } from '../helpers/harness.js';

let sandbox: SandboxServer;
let token: string;
const logs: string[] = [];
const logger = createLogger('debug', { write: (line: string) => void logs.push(line) });

async function control(method: string, path: string, body?: unknown) {
  const res = await fetch(`${sandbox.searchUrl}/__sandbox${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return (await res.json()) as Json;
}

const requestsOf = async (t: string) =>
  (await control('GET', `/credentials/${t}/requests`)).requests as Json[];

function client(extra: Partial<UpstreamClientOptions> = {}) {
  return createUpstreamClient({
    searchUrl: sandbox.searchUrl,
    agentUrl: sandbox.agentUrl,
    backoffBaseMs: 5,
    backoffMaxMs: 20,
    logger,
    ...extra,
  });
}

async function failure(promise: Promise<unknown>): Promise<UpstreamError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof UpstreamError) return error;
    throw error;
  }
  throw new Error('expected an UpstreamError');
}

beforeAll(async () => {
  sandbox = await startSandboxServer({ port: 0, host: '127.0.0.1', speed: 'instant' });
});
afterAll(async () => {
  await sandbox?.close();
});
beforeEach(async () => {
  token = (await control('POST', '/credentials', { credits: 10, producer: false })).token;
});

const creds = () => ({ token, userId: 'analyst-7' });

describe('UpstreamClient against the sandbox', () => {
  it('sends both headers, and only the token header on GET /api/usage', async () => {
    const c = client();
    await c.createKeywordSearch(creds(), { query: 'solar' });
    await c.getUsage(creds(), undefined);
    const log = await requestsOf(token);
    expect(log.map((r) => [r.method, r.path, r.user_id])).toEqual([
      ['POST', '/api/iq/keyword_search', 'analyst-7'],
      ['GET', '/api/usage', null],
    ]);
  });

  it('parses leniently: numeric strings become numbers, unknown fields are kept', async () => {
    const c = client();
    const created = await c.createKeywordSearch(creds(), { query: 'wind' });
    const details = await c.getKeywordSearch(creds(), created.id);
    expect(typeof details.status_percentage).toBe('number');
    expect(details).toHaveProperty('created_at');
    expect(details).toHaveProperty('tweet_preview');
  });

  it('retries an idempotent read on 5xx, and never a create', async () => {
    const c = client();
    await control('PUT', '/faults', { token, error_rate: 1, error_status: 503, remaining: 2 });
    const list = await c.listRuns(creds(), {});
    expect(list.runs).toEqual([]);
    expect((await requestsOf(token)).map((r) => r.status)).toEqual([503, 503, 200]);

    await control('DELETE', `/credentials/${token}/requests`);
    await control('PUT', '/faults', { token, error_rate: 1, error_status: 502, remaining: 1 });
    const error = await failure(c.createKeywordSearch(creds(), { query: 'x' }));
    expect(error.kind).toBe('server');
    expect(error.status).toBe(502);
    expect((await requestsOf(token)).map((r) => r.status)).toEqual([502]);
  });

  it('tells the observer it is given of every attempt, retries included (metrics are passed in)', async () => {
    const seen: [string, number | string][] = [];
    const c = client({ observe: (host, outcome) => seen.push([host, outcome]) });
    await control('PUT', '/faults', { token, error_rate: 1, error_status: 503, remaining: 1 });
    await c.listRuns(creds(), {});
    expect(seen).toEqual([
      ['agent', 503],
      ['agent', 200],
    ]);
  });

  it('gives up after maxRetries and reports the last 5xx', async () => {
    const c = client({ maxRetries: 1 });
    await control('PUT', '/faults', { token, error_rate: 1, error_status: 500 });
    const error = await failure(c.getSetup(creds()));
    expect(error.kind).toBe('server');
    expect((await requestsOf(token)).length).toBe(2);
    await control('DELETE', `/faults?token=${token}`);
  });

  it('honours Retry-After on 429 for reads, and returns the 429 when it is too long', async () => {
    const c = client({ maxRetryAfterMs: 2_000 });
    await control('PUT', '/faults', { token, rate_limit: true, retry_after_s: 1, remaining: 1 });
    const started = Date.now();
    await c.getSetup(creds());
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect((await requestsOf(token)).map((r) => r.status)).toEqual([429, 200]);

    await control('PUT', '/faults', { token, rate_limit: true, retry_after_s: 30, remaining: 1 });
    const t0 = Date.now();
    const error = await failure(c.getSetup(creds()));
    expect(Date.now() - t0).toBeLessThan(1_000);
    expect(error.kind).toBe('rate_limited');
    expect(error.retryAfterMs).toBe(30_000);
  });

  it('times out a hanging request, retrying reads, once for writes', async () => {
    const c = client({ timeoutMs: 200, maxRetries: 1 });
    await control('PUT', '/faults', { token, hang: true });
    const t0 = Date.now();
    const read = await failure(c.getSetup(creds()));
    expect(read.kind).toBe('timeout');
    expect(Date.now() - t0).toBeGreaterThanOrEqual(400);
    expect(Date.now() - t0).toBeLessThan(2_000);
    const write = await failure(c.updateSetup(creds(), 'https://example.com/hook'));
    expect(write.kind).toBe('timeout');
    await control('DELETE', `/faults?token=${token}`);
    // PUT is not retried: 2 GET attempts + 1 PUT attempt.
    expect((await requestsOf(token)).length).toBe(3);
  });

  it('stops waiting when the caller aborts', async () => {
    const c = client({ timeoutMs: 5_000 });
    await control('PUT', '/faults', { token, hang: true });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const error = await failure(c.getSetup(creds(), { signal: controller.signal }));
    expect(error.kind).toBe('aborted');
    await control('DELETE', `/faults?token=${token}`);
  });

  it('maps every upstream status to its error kind with the body details', async () => {
    const c = client();
    const bad = await failure(c.getKeywordSearch({ token: 'not-a-token', userId: 'u' }, 1));
    expect([bad.kind, bad.status]).toEqual(['unauthorized', 401]);

    const missing = await failure(c.getKeywordSearch(creds(), 999_999));
    expect([missing.kind, missing.status]).toEqual(['not_found', 404]);

    const forbidden = await failure(c.createExpertSearch(creds(), { query: 'virologists' }));
    expect([forbidden.kind, forbidden.status]).toEqual(['forbidden', 403]);

    const invalid = await failure(
      c.createKeywordSearch(creds(), { query: 'x', platforms: ['linkedin', 'twitter'] }),
    );
    expect([invalid.kind, invalid.status]).toEqual(['bad_request', 400]);
    expect(invalid.detail).toMatch(/linkedin/i);

    const poor = await control('POST', '/credentials', { credits: 0 });
    const broke = await failure(c.createKeywordSearch({ token: poor.token, userId: 'u' }, { query: 'x' }));
    expect([broke.kind, broke.status]).toEqual(['payment_required', 402]);
    expect(broke.credits).toEqual({ required: 1, available: 0 });

    const run = await c.createRun(creds(), { question: 'What is trending?' });
    const empty = await failure(c.updateRun(creds(), run.id, {}));
    expect([empty.kind, empty.status]).toEqual(['unprocessable', 422]);
    expect(empty.detail).toBeTruthy();
  });

  it('reports network failures and malformed bodies', async () => {
    const dead = createUpstreamClient({
      searchUrl: 'http://127.0.0.1:9',
      agentUrl: 'http://127.0.0.1:9',
      maxRetries: 0,
    });
    const net = await failure(dead.getSetup(creds()));
    expect(net.kind).toBe('network');

    // An upstream that answers 200 with the wrong thing: an HTML page, then JSON of the wrong shape.
    const bodies = ['<html>oops</html>', JSON.stringify({ posts: 'none' })];
    const odd = createHttpServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' }).end(bodies.shift() ?? '');
    });
    await new Promise<void>((resolve) => odd.listen(0, '127.0.0.1', resolve));
    const { port } = odd.address() as AddressInfo;
    try {
      const strange = client({ searchUrl: `http://127.0.0.1:${port}`, agentUrl: `http://127.0.0.1:${port}` });
      expect((await failure(strange.getSetup(creds()))).kind).toBe('malformed');
      expect((await failure(strange.getKeywordSearchPosts(creds(), 1, undefined))).kind).toBe('malformed');
    } finally {
      odd.closeAllConnections();
      await new Promise((resolve) => odd.close(resolve));
    }
  });

  it('treats a redirect as an unexpected status and does not follow it', async () => {
    let followed = false;
    const redirecting = createHttpServer((req, res) => {
      if (req.url === '/elsewhere') followed = true;
      res.writeHead(302, { location: '/elsewhere' }).end();
    });
    await new Promise<void>((resolve) => redirecting.listen(0, '127.0.0.1', resolve));
    const { port } = redirecting.address() as AddressInfo;
    try {
      const c = client({ searchUrl: `http://127.0.0.1:${port}`, agentUrl: `http://127.0.0.1:${port}` });
      const error = await failure(c.getSetup(creds()));
      expect(error).toMatchObject({ kind: 'http', status: 302 });
      expect(followed).toBe(false);
    } finally {
      redirecting.closeAllConnections();
      await new Promise((resolve) => redirecting.close(resolve));
    }
  });

  it('reuses one keep-alive connection for sequential calls, errors included', async () => {
    // A counting TCP relay in front of the sandbox: every new upstream connection is one accept.
    const target = new URL(sandbox.searchUrl);
    let accepted = 0;
    const relay = createServer((inbound: Socket) => {
      accepted++;
      const outbound = connect(Number(target.port), target.hostname);
      inbound.pipe(outbound).pipe(inbound);
      inbound.on('error', () => outbound.destroy());
      outbound.on('error', () => inbound.destroy());
    });
    await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
    const port = (relay.address() as { port: number }).port;
    const c = createUpstreamClient({
      searchUrl: `http://127.0.0.1:${port}`,
      agentUrl: `http://127.0.0.1:${port}/agent`,
    });
    // undici hands a socket back to its pool a moment after the body ends, so the very next call
    // may open a second one; from then on the pool must not grow.
    await c.getSetup(creds());
    await c.getSetup(creds());
    const warm = accepted;
    expect(warm).toBeLessThanOrEqual(2);
    for (let i = 0; i < 10; i++) await c.getSetup(creds());
    for (let i = 0; i < 5; i++) await failure(c.getKeywordSearch(creds(), 424_242));
    await failure(c.createKeywordSearch(creds(), { query: 'x', platforms: ['linkedin', 'reddit'] }));
    for (let i = 0; i < 5; i++) await c.listRuns(creds(), { limit: 5 });
    expect(accepted).toBe(warm);
    await new Promise<void>((resolve) => {
      relay.close(() => resolve());
      (relay as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
      setTimeout(resolve, 200);
    });
  });

  it('never writes a token to the log', async () => {
    logs.length = 0;
    const c = client();
    await c.getSetup(creds());
    await failure(c.getKeywordSearch(creds(), 31_337));
    await failure(c.getSetup({ token: 'secret-token-that-must-not-leak', userId: 'u' }));
    expect(logs.length).toBeGreaterThan(0);
    const all = logs.join('\n');
    expect(all).not.toContain(token);
    expect(all).not.toContain('secret-token-that-must-not-leak');
  });
});

describe('parseRetryAfter', () => {
  it('reads seconds and HTTP dates', () => {
    expect(parseRetryAfter('3')).toBe(3_000);
    expect(parseRetryAfter(new Date(10_000).toUTCString(), 4_000)).toBe(6_000);
    expect(parseRetryAfter('soon')).toBeNull();
    expect(parseRetryAfter(null)).toBeNull();
  });
});
