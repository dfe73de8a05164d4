import { describe, expect, it } from 'vitest';
import { reserveMs } from '../../../src/mcp/tools/long-work.js';
import { textOf } from '../../helpers/harness.js';
import { mcpBehaviourFixture } from '../../helpers/mcp-behaviour.js';

/**
 * Waiting tool calls at their limits: past the wait a search or run is handed back with its id, a
 * cancelled submit leaves the search running, results late after finishing, unreadable status, failure.
 */
const fx = mcpBehaviourFixture();
const { session, record, until } = fx;

describe('waiting', () => {
  it('past the wait limit a search returns its id and the tool to call later, not an error', async () => {
    const { upstreamToken, client } = await session();
    await fx.h.control('PATCH', `/credentials/${upstreamToken}`, { speed: 'demo' });
    const started = Date.now();
    const result = await client.callTool({
      name: 'submit_keyword_search',
      arguments: { query: 'slow search' },
    });
    // The wait ends at its limit (1.5 s here) less the reserve kept for the last poll and the answer.
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_500 - reserveMs(1_500));
    expect(result.isError).toBeFalsy();
    const s = result.structuredContent;
    expect(s.completed).toBe(false);
    expect(s.search_id).toBeGreaterThan(0);
    expect(s.next_step).toMatch(new RegExp(`get_keyword_search with search_id ${s.search_id}`));
    await client.close();
  });

  it('past the wait limit an agent run returns its id and status', async () => {
    const { upstreamToken, client } = await session();
    await fx.h.control('PATCH', `/credentials/${upstreamToken}`, { speed: 'demo' });
    const result = await client.callTool({
      name: 'start_agent_run',
      arguments: { question: 'Slow question' },
    });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent.completed).toBe(false);
    expect(['pending', 'running']).toContain(result.structuredContent.status);
    expect(result.structuredContent.next_step).toMatch(/get_agent_run/);
    // The run keeps going upstream.
    expect((await record(upstreamToken)).runs[0].status).not.toBe('failed');
    await client.close();
  });

  it('a cancelled submit leaves the search running upstream', async () => {
    const { upstreamToken, client } = await session();
    await fx.h.control('PATCH', `/credentials/${upstreamToken}`, { speed: 'demo' });
    const controller = new AbortController();
    const call = client.callTool(
      { name: 'submit_keyword_search', arguments: { query: 'left alone' } },
      { signal: controller.signal },
    );
    await until(
      () => record(upstreamToken),
      (r) => r.searches.keyword.length === 1,
    );
    controller.abort();
    await expect(call).rejects.toThrow();
    const r = await record(upstreamToken);
    expect(['pending', 'started', 'finished']).toContain(r.searches.keyword[0].status);
    await client.close();
  });

  it('keeps waiting a little when a search reports finished before its results', async () => {
    const { upstreamToken, client } = await session();
    await fx.h.control('PUT', '/faults', { token: upstreamToken, results_lag_ms: 250 });
    const ok = await client.callTool({
      name: 'submit_keyword_search',
      arguments: { query: 'lagging results' },
    });
    expect(ok.structuredContent.completed).toBe(true);
    expect(ok.structuredContent.results).toBeTruthy();

    await fx.h.control('PUT', '/faults', { token: upstreamToken, results_lag_ms: 60_000 });
    const none = await client.callTool({
      name: 'submit_keyword_search',
      arguments: { query: 'never results' },
    });
    expect(none.isError).toBeFalsy();
    expect(none.structuredContent.status).toBe('finished');
    expect(none.structuredContent.results ?? null).toBeNull();
    expect(textOf(none)).toMatch(/finished without analysis results/);
    await client.close();
  });

  it('a waiting run (backend unavailable) is reported as waiting after the wait limit', async () => {
    const { upstreamToken, client } = await session();
    await fx.h.control('PUT', '/faults', { token: upstreamToken, backend_unavailable: true });
    const result = await client.callTool({
      name: 'start_agent_run',
      arguments: { question: 'Backend down?' },
    });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent.status).toBe('waiting');
    expect(result.structuredContent.completed).toBe(false);
    expect(textOf(result)).toMatch(/temporarily unavailable.*resumes automatically/);
    expect((await record(upstreamToken)).runs[0].status).toBe('waiting');
    await client.close();
  });

  it('when its status cannot be read, a created search is still handed back with its id', async () => {
    const { upstreamToken, client } = await session();
    await fx.h.control('PUT', '/faults', {
      token: upstreamToken,
      error_rate: 1,
      error_status: 500,
      path_prefix: '/api/iq/keyword_search/',
    });
    const result = await client.callTool({
      name: 'submit_keyword_search',
      arguments: { query: 'unreadable' },
    });
    expect(result.isError).toBeFalsy();
    const s = result.structuredContent;
    expect(s.completed).toBe(false);
    // Polled on to the limit: the last read failed with the 500, or the circuit had opened after five.
    expect(s.next_step).toMatch(
      new RegExp(
        `(Reading the search's status failed \\(server 500\\)|The upstream is not answering \\(its last \\d+ requests failed\\)).*get_keyword_search with search_id ${s.search_id}`,
      ),
    );
    await client.close();
  });

  it('a failed search is a completed result saying so', async () => {
    const { upstreamToken, client } = await session();
    await fx.h.control('PUT', '/faults', { token: upstreamToken, fail_searches: true });
    const result = await client.callTool({
      name: 'submit_user_search',
      arguments: { query: 'x', platform: 'twitter' },
    });
    expect(result.structuredContent.status).toBe('failed');
    expect(textOf(result)).toMatch(/failed/);
    await client.close();
  });
});
