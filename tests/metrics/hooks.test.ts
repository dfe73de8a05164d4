import { and, eq, isNotNull } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry } from '../../src/metrics/registry.js';
import { waitingCalls } from '../../src/metrics/tools.js';
import { FormClient } from '../helpers/forms.js';
import { connectV2, type Harness, startHarness } from '../helpers/harness.js';
import { fullGrant, registerClient, signedInUser, tokenRequest } from '../helpers/oauth-http.js';
import { sample } from '../helpers/prometheus.js';

/**
 * The one-line hooks in other parts (tools, upstream client, token endpoint, registration, sign-in)
 * move the metrics they should. The servers run in this process, so the registry is read directly.
 */
let h: Harness;
beforeAll(async () => {
  h = await startHarness({ searchMaxWaitMs: 8_000 });
});
afterAll(async () => {
  await h?.close();
});

const scrape = () => registry.metrics();

async function delta(run: () => Promise<void>, series: string[]): Promise<number[]> {
  const before = await scrape();
  await run();
  const after = await scrape();
  return series.map((s) => sample(after, s) - sample(before, s));
}

describe('metric hooks', () => {
  it('tool calls by tool and outcome, and upstream calls by host and status', async () => {
    const upstreamToken = await h.credential();
    const client = await connectV2(h.mcpUrl, await h.token({ upstreamToken }));
    const [ok, invalid, upstreamOk] = await delta(async () => {
      const good = await client.callTool({ name: 'list_agent_runs', arguments: {} });
      expect(good.isError).toBeFalsy();
      const bad = await client.callTool({ name: 'get_agent_run', arguments: { run_id: 42 } });
      expect(bad.isError).toBe(true);
    }, [
      'mcp_tool_calls_total{tool="list_agent_runs",outcome="ok"}',
      'mcp_tool_calls_total{tool="get_agent_run",outcome="invalid"}',
      'upstream_request_duration_seconds_count{host="agent",status="200"}',
    ]);
    expect(ok).toBe(1);
    expect(invalid).toBe(1);
    expect(upstreamOk).toBe(1);
    await client.close();
  });

  it('counts a call waiting for a search in mcp_waiting_calls while it waits', async () => {
    const upstreamToken = await h.credential();
    await h.control('PATCH', `/credentials/${upstreamToken}`, { speed: 'demo' });
    const client = await connectV2(h.mcpUrl, await h.token({ upstreamToken }));
    const gauge = async () => (await waitingCalls.get()).values[0]?.value ?? 0;
    const idle = await gauge();
    const call = client.callTool({ name: 'submit_keyword_search', arguments: { query: 'waiting gauge' } });
    let peak = idle;
    const until = Date.now() + 5_000;
    while (peak === idle && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 20));
      peak = await gauge();
    }
    expect(peak).toBe(idle + 1);
    await call;
    expect(await gauge()).toBe(idle);
    await client.close();
  });

  it('registrations, tokens issued, refreshes and reuse detection', async () => {
    const server = h.server;
    const user = await signedInUser(server);
    const series = [
      'oauth_client_registrations_total{kind="dcr"}',
      'oauth_tokens_issued_total{grant_type="authorization_code"}',
      'oauth_tokens_issued_total{grant_type="refresh_token"}',
      'oauth_refreshes_total{outcome="ok"}',
      'oauth_refreshes_total{outcome="reused"}',
      'oauth_refresh_token_reuse_detected_total',
    ];
    const moved = await delta(async () => {
      await registerClient(server);
      const { client, refreshToken } = await fullGrant(server, user);
      const refresh = (token: string) =>
        tokenRequest(server, {
          grant_type: 'refresh_token',
          refresh_token: token,
          client_id: client.client_id,
        });
      expect((await refresh(refreshToken)).status).toBe(200);
      // The rotated token comes back long after the grace window: theft, the family is revoked.
      await server.db.orm
        .update(server.db.t.oauthTokens)
        .set({ rotatedAt: Date.now() - 3_600_000 })
        .where(
          and(eq(server.db.t.oauthTokens.kind, 'refresh'), isNotNull(server.db.t.oauthTokens.rotatedAt)),
        );
      expect((await refresh(refreshToken)).status).toBe(400);
    }, series);
    expect(moved).toEqual([2, 1, 1, 1, 1, 1]);
  });

  it('failed sign-ins', async () => {
    const [invalid] = await delta(async () => {
      const browser = new FormClient(h.server.url);
      await browser.get('/sign-in');
      const res = await browser.post('/sign-in', {
        email: 'nobody@example.com',
        password: 'not the password',
      });
      expect(res.status).toBe(401);
    }, ['sign_in_failures_total{reason="invalid"}']);
    expect(invalid).toBe(1);
  });
});
