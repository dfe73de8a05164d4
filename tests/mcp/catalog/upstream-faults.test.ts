import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AnyClient, connectV2, textOf } from '../../helpers/harness.js';
import { mcpBehaviourFixture } from '../../helpers/mcp-behaviour.js';

/**
 * Upstream faults and errors become tool results a model can act on: 5xx, latency, 429, hangs, 402,
 * 403, 404/422, 401, no linked credential, and invalid arguments refused before any upstream call.
 */
const fx = mcpBehaviourFixture();
const { session, requests } = fx;

describe('upstream faults become tool results', () => {
  let client: AnyClient;
  let upstreamToken: string;
  beforeAll(async () => {
    ({ client, upstreamToken } = await session());
  });
  afterAll(async () => {
    await client.close();
  });

  it('5xx: transient ones are retried, persistent ones give retry advice', async () => {
    await fx.h.control('PUT', '/faults', {
      token: upstreamToken,
      error_rate: 1,
      error_status: 503,
      remaining: 1,
    });
    const retried = await client.callTool({ name: 'usage', arguments: {} });
    expect(retried.isError).toBeFalsy();
    await fx.h.control('PUT', '/faults', { token: upstreamToken, error_rate: 1, error_status: 502 });
    const failed = await client.callTool({ name: 'list_agent_runs', arguments: {} });
    expect(failed.isError).toBe(true);
    expect(textOf(failed)).toMatch(/internal error \(502\).*Retry in a minute/);
  });

  it('latency under the timeout is waited out; over it is a timeout with retry advice', async () => {
    await fx.h.control('PUT', '/faults', { token: upstreamToken, latency_ms: 150 });
    expect((await client.callTool({ name: 'get_integration_setup', arguments: {} })).isError).toBeFalsy();
    await fx.h.control('PUT', '/faults', { token: upstreamToken, latency_ms: 5_000 });
    const slow = await client.callTool({ name: 'get_integration_setup', arguments: {} });
    expect(slow.isError).toBe(true);
    expect(textOf(slow)).toMatch(/did not answer in time.*retry/i);
  });

  it('429 names the wait', async () => {
    await fx.h.control('PUT', '/faults', { token: upstreamToken, rate_limit: true, retry_after_s: 30 });
    const limited = await client.callTool({ name: 'get_keyword_searches', arguments: {} });
    expect(limited.isError).toBe(true);
    expect(textOf(limited)).toMatch(/rate limiting.*Wait 30 seconds/);
  });

  it('a hanging upstream is a timeout', async () => {
    await fx.h.control('PUT', '/faults', { token: upstreamToken, hang: true });
    const hung = await client.callTool({ name: 'list_agent_schedules', arguments: {} });
    expect(hung.isError).toBe(true);
    expect(textOf(hung)).toMatch(/did not answer in time/);
  });
});

describe('upstream errors become sentences a model can act on', () => {
  it('402 out of credits, with the numbers', async () => {
    const { client } = await session(connectV2, { credits: 0 });
    const r = await client.callTool({ name: 'submit_keyword_search', arguments: { query: 'no money' } });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/Out of credits.*needs 1 credit\(s\) and the account has 0 left/);
    const run = await client.callTool({
      name: 'start_agent_run',
      arguments: { question: 'q', available_credits: 2 },
    });
    expect(textOf(run)).toMatch(/needs 2 credit\(s\) and the account has 0 left/);
    await client.close();
  });

  it('403 on expert search: the key lacks the producer permission', async () => {
    const { client } = await session(connectV2, { producer: false });
    const r = await client.callTool({ name: 'submit_expert_search', arguments: { query: 'virologists' } });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/lacks the producer permission/);
    await client.close();
  });

  it('404 unknown id suggests the list tool; 422 explains the state', async () => {
    const { client } = await session();
    const missing = await client.callTool({ name: 'get_agent_run', arguments: { run_id: randomUUID() } });
    expect(textOf(missing)).toMatch(/No agent run with that id.*list_agent_runs/);
    const missingSearch = await client.callTool({
      name: 'get_user_search',
      arguments: { search_id: 987_654 },
    });
    expect(textOf(missingSearch)).toMatch(/No user search with that id.*get_user_searches/);
    const done = await client.callTool({ name: 'start_agent_run', arguments: { question: 'Quick one' } });
    const cancel = await client.callTool({
      name: 'cancel_agent_run',
      arguments: { run_id: done.structuredContent.run_id },
    });
    expect(cancel.isError).toBe(true);
    expect(textOf(cancel)).toMatch(/current state \(422\).*already completed/);
    await client.close();
  });

  it('401: the linked token was rejected; re-link it', async () => {
    const client = await connectV2(fx.h.mcpUrl, await fx.h.token({ upstreamToken: 'sbx_not_a_real_token' }));
    const r = await client.callTool({ name: 'usage', arguments: {} });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toContain(`${fx.h.server.config.publicUrl}/account/credentials`);
    expect(textOf(r)).toMatch(/rejected \(401\)/);
    expect(textOf(r)).not.toContain('sbx_not_a_real_token');
    await client.close();
  });

  it('no linked credential: link it first, nothing sent upstream', async () => {
    const client = await connectV2(fx.h.mcpUrl, await fx.h.token({ upstreamToken: null }));
    const r = await client.callTool({ name: 'get_keyword_searches', arguments: {} });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/No upstream API credentials are linked/);
    expect(textOf(r)).toContain(`${fx.h.server.config.publicUrl}/account/credentials`);
    await client.close();
  });

  it('invalid arguments are refused before any upstream call', async () => {
    const { client, upstreamToken } = await session();
    const cases: Array<[string, Record<string, unknown>]> = [
      ['submit_keyword_search', { query: 'x', surprise: true }],
      ['submit_keyword_search', { query: 'x', platforms: ['linkedin', 'twitter'] }],
      ['submit_keyword_search', { query: 'x', start_date: '01/02/2026' }],
      ['get_agent_run', { run_id: 'not-a-uuid' }],
      ['get_keyword_search', { search_id: -3 }],
      ['get_keyword_search', { search_id: '12abc' }],
      ['update_agent_run', { run_id: randomUUID() }],
      ['get_usage_by_month', { month: '2026-13' }],
    ];
    for (const [name, args] of cases) {
      const r = await client.callTool({ name, arguments: args });
      expect(r.isError, `${name} ${JSON.stringify(args)}`).toBe(true);
      expect(textOf(r)).toMatch(/Invalid arguments|validation/i);
    }
    expect(await requests(upstreamToken)).toEqual([]);
    await client.close();
  });
});
