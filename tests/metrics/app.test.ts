import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sample } from '../helpers/prometheus.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const TOKEN = 'app-metrics-token-0123456789abcdef';
let withToken: TestServer;
let without: TestServer;

beforeAll(async () => {
  withToken = await startTestServer({ env: { METRICS_TOKEN: TOKEN } });
  without = await startTestServer();
});
afterAll(async () => {
  await withToken?.close();
  await without?.close();
});

const scrape = async (server: TestServer) => {
  const res = await fetch(`${server.url}/metrics`, { headers: { Authorization: `Bearer ${TOKEN}` } });
  expect(res.status).toBe(200);
  return res.text();
};

describe('/metrics in the app', () => {
  it('is a 404 like any unknown path when METRICS_TOKEN is unset', async () => {
    const res = await fetch(`${without.url}/metrics`, { headers: { Authorization: `Bearer ${TOKEN}` } });
    const unknown = await fetch(`${without.url}/metricz`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: 'not_found', message: 'Nothing is served at /metrics.' });
    expect(unknown.status).toBe(404);
  });

  it('needs the bearer token', async () => {
    expect((await fetch(`${withToken.url}/metrics`)).status).toBe(401);
    const wrong = await fetch(`${withToken.url}/metrics`, { headers: { Authorization: 'Bearer nope' } });
    expect(wrong.status).toBe(401);
  });

  it("counts the app's requests under their route patterns, 404s under the catch-all", async () => {
    const before = await scrape(withToken);
    await fetch(`${withToken.url}/healthz`);
    await fetch(`${withToken.url}/healthz`);
    await fetch(`${withToken.url}/.well-known/oauth-authorization-server`);
    await fetch(`${withToken.url}/wp-admin/${crypto.randomUUID()}`);
    const mcp = await fetch(`${withToken.url}/mcp`, { method: 'POST', body: '{}' });
    expect(mcp.status).toBe(401);
    const after = await scrape(withToken);
    const delta = (series: string) => sample(after, series) - sample(before, series);
    expect(delta('http_requests_total{method="GET",route="/healthz",status="200"}')).toBe(2);
    expect(
      delta('http_requests_total{method="GET",route="/.well-known/oauth-authorization-server",status="200"}'),
    ).toBe(1);
    expect(delta('http_requests_total{method="GET",route="/*",status="404"}')).toBe(1);
    expect(delta('http_requests_total{method="POST",route="/mcp",status="401"}')).toBe(1);
    expect(after).not.toContain('wp-admin');
    expect(sample(after, 'database_size_bytes')).toBeGreaterThan(0);
  });
});
