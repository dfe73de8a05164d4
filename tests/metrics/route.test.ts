import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OpenStore } from '../../src/db/store/index.js';
import { metricsRoutes } from '../../src/metrics/route.js';
import { testEngine } from '../helpers/engine.js';
import { sample } from '../helpers/prometheus.js';
import { openRawSql, type RawSql } from '../helpers/raw-sql.js';
import { migratedTestStore, type TestStore } from '../helpers/stores.js';

let ctx: TestStore;
let db: OpenStore;
let raw: RawSql;
beforeAll(async () => {
  ctx = await migratedTestStore(testEngine());
  db = ctx.store;
  raw = openRawSql(ctx.location);
});
afterAll(async () => {
  await raw.close();
  await ctx.cleanup();
});

const TOKEN = 'metrics-token-for-tests-0123456789';

function appWith(token: string | null) {
  const app = new Hono();
  app.route('/', metricsRoutes({ token, db }));
  app.get('/items/:id', (c) => c.text(`item ${c.req.param('id')}`));
  app.post('/boom', () => {
    throw new Error('boom');
  });
  app.notFound((c) => c.json({ error: 'not_found', message: `Nothing is served at ${c.req.path}.` }, 404));
  app.onError((_e, c) => c.json({ error: 'internal_error' }, 500));
  return app;
}

async function scrape(app: Hono): Promise<string> {
  const res = await app.request('/metrics', { headers: { Authorization: `Bearer ${TOKEN}` } });
  expect(res.status).toBe(200);
  return res.text();
}

describe('/metrics', () => {
  it('answers 404 exactly like an unknown path when METRICS_TOKEN is unset', async () => {
    const app = appWith(null);
    const metrics = await app.request('/metrics', { headers: { Authorization: `Bearer ${TOKEN}` } });
    const unknown = await app.request('/nothing-here');
    expect(metrics.status).toBe(404);
    expect(await metrics.json()).toEqual({ error: 'not_found', message: 'Nothing is served at /metrics.' });
    expect(unknown.status).toBe(404);
  });

  it('refuses a missing or wrong bearer token with 401 and no metrics', async () => {
    const app = appWith(TOKEN);
    const cases: Array<Record<string, string>> = [
      {},
      { Authorization: `Bearer ${TOKEN}x` },
      { Authorization: `Bearer ${TOKEN.slice(0, -1)}` },
      { Authorization: `Basic ${Buffer.from(`x:${TOKEN}`).toString('base64')}` },
      { Authorization: 'Bearer ' },
    ];
    for (const headers of cases) {
      const res = await app.request('/metrics', { headers });
      expect(res.status).toBe(401);
      expect(res.headers.get('WWW-Authenticate')).toBe('Bearer realm="metrics"');
      expect(await res.text()).not.toContain('http_requests_total');
    }
  });

  it('serves the Prometheus text format with the token', async () => {
    const app = appWith(TOKEN);
    const res = await app.request('/metrics', { headers: { Authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Type')).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(res.headers.get('Cache-Control')).toBe('no-store');
    const text = await res.text();
    for (const name of [
      'http_requests_total',
      'http_request_duration_seconds',
      'mcp_tool_calls_total',
      'mcp_waiting_calls',
      'upstream_request_duration_seconds',
      'oauth_tokens_issued_total',
      'oauth_refreshes_total',
      'oauth_refresh_token_reuse_detected_total',
      'oauth_client_registrations_total',
      'sign_in_failures_total',
      'database_size_bytes',
      'process_cpu_seconds_total',
      'nodejs_eventloop_lag_seconds',
    ]) {
      expect(text).toContain(`# TYPE ${name} `);
    }
  });

  it('labels requests by route pattern, never by raw path, with status and method', async () => {
    const app = appWith(TOKEN);
    const before = await scrape(app);
    const series = 'http_requests_total{method="GET",route="/items/:id",status="200"}';
    const notFound = 'http_requests_total{method="GET",route="/*",status="404"}';
    const failed = 'http_requests_total{method="POST",route="/boom",status="500"}';
    for (let i = 0; i < 5; i++) await app.request(`/items/${crypto.randomUUID()}`);
    for (let i = 0; i < 3; i++) await app.request(`/probe-${crypto.randomUUID()}`);
    await app.request('/boom', { method: 'POST' });
    const after = await scrape(app);
    expect(sample(after, series) - sample(before, series)).toBe(5);
    expect(sample(after, notFound) - sample(before, notFound)).toBe(3);
    expect(sample(after, failed) - sample(before, failed)).toBe(1);
    expect(after).not.toMatch(/probe-|items\/[0-9a-f]{8}-/);
    const count = 'http_request_duration_seconds_count{method="GET",route="/items/:id"}';
    expect(sample(after, count) - sample(before, count)).toBe(5);
  });

  it('measures the database size at each scrape', async () => {
    const app = appWith(TOKEN);
    const first = sample(await scrape(app), 'database_size_bytes');
    expect(first).toBe(await databaseBytes());
    await raw.run('CREATE TABLE filler (x text)');
    await raw.run('INSERT INTO filler VALUES (?)', 'x'.repeat(256 * 1024));
    const second = sample(await scrape(app), 'database_size_bytes');
    expect(second).toBeGreaterThan(first);
    expect(second).toBe(await databaseBytes());
  });
});

/** The engine's own figure: SQLite pages × page size, PostgreSQL pg_database_size. */
async function databaseBytes(): Promise<number> {
  const row =
    db.engine === 'sqlite'
      ? await raw.get<{ n: number }>(
          'SELECT page_count * page_size AS n FROM pragma_page_count(), pragma_page_size()',
        )
      : await raw.get<{ n: number }>('SELECT pg_database_size(current_database()) AS n');
  return Number(row?.n);
}
