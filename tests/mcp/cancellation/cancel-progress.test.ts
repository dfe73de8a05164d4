import { afterEach, describe, expect, it } from 'vitest';
import { type AnyClient, connectV1, connectV2, type Json } from '../../helpers/harness.js';
import { mcpBehaviourFixture } from '../../helpers/mcp-behaviour.js';

/**
 * Progress and cancellation of waiting tool calls against the sandbox, with v2 and v1 clients: progress
 * notifications, a client that stops waiting (a `notifications/cancelled`, an aborted request) or
 * drops the connection mid-wait: the run keeps going upstream.
 */
const fx = mcpBehaviourFixture();
const { session, record, requests, until } = fx;

describe.each([
  ['v2', connectV2],
  ['v1', connectV1],
])('waiting with the %s client', (_label, connect) => {
  let client: AnyClient | undefined;
  afterEach(async () => {
    await client?.close();
    client = undefined;
  });

  it('a submit tool sends progress notifications and returns the full result', async () => {
    const s = await session(connect, { producer: true });
    client = s.client;
    await fx.h.control('PATCH', `/credentials/${s.upstreamToken}`, { speed: 'demo' });
    // Sandbox time runs 10x faster than ours: the 4 s demo search takes ~0.4 s.
    await fx.h.control('POST', '/clock', { freeze: true });
    const ticker = setInterval(() => {
      fx.h.control('POST', '/clock', { advance_ms: 500 }).catch(() => {});
    }, 50);
    const progress: Array<{ progress: number; total?: number; message?: string }> = [];
    try {
      const result = await client.callTool(
        { name: 'submit_keyword_search', arguments: { query: 'solar panels', platforms: ['twitter'] } },
        { onprogress: (p: Json) => progress.push(p) },
      );
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent.completed).toBe(true);
      expect(result.structuredContent.results).toBeTruthy();
    } finally {
      clearInterval(ticker);
    }
    expect(progress.length).toBeGreaterThanOrEqual(2);
    const values = progress.map((p) => p.progress);
    expect(values).toEqual([...values].sort((a, b) => a - b));
    expect(new Set(values).size).toBe(values.length);
    expect(progress.every((p) => p.total === 100)).toBe(true);
    expect(progress.some((p) => /started: Collecting posts|Analyzing/i.test(p.message ?? ''))).toBe(true);
  });

  it('a start_agent_run the client stops waiting for keeps running upstream', async () => {
    const s = await session(connect);
    client = s.client;
    await fx.h.control('PATCH', `/credentials/${s.upstreamToken}`, { speed: 'demo' });
    const controller = new AbortController();
    const progress: Json[] = [];
    const call = client.callTool(
      { name: 'start_agent_run', arguments: { question: 'Will it rain on the parade?' } },
      { signal: controller.signal, onprogress: (p: Json) => progress.push(p) },
    );
    const started = await until(
      () => record(s.upstreamToken),
      (r) => r.runs.length === 1,
    );
    expect(started.runs[0].status).not.toBe('failed');
    // The first progress notification names the run, so a client that gives up still has its id.
    await until(
      async () => progress,
      (p) => p.length > 0,
    );
    expect(progress[0].message).toContain(`agent run ${started.runs[0].id} created`);
    controller.abort();
    await expect(call).rejects.toThrow();
    // The 2025-era client sends notifications/cancelled for the request, the 2026-07-28 one closes it:
    // either way the client stopped waiting, and only cancel_agent_run or tasks/cancel cancel a run.
    const cancelled = await until(
      () => requests(s.upstreamToken),
      (r) => r.some((x) => x.path.endsWith('/cancel')),
      1_000,
    );
    expect(cancelled.some((r) => r.path.endsWith('/cancel'))).toBe(false);
    expect((await record(s.upstreamToken)).runs[0].status).not.toBe('failed');
  });
});

describe('client disconnects', () => {
  it.each([
    ['2026-07-28', true],
    ['2025 era', false],
  ])(
    'a client that drops the connection mid-wait leaves its agent run running upstream (%s)',
    async (_l, modern) => {
      const upstreamToken = await fx.h.credential({ speed: 'demo' });
      const access = await fx.h.token({ upstreamToken });
      const meta = {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
        'io.modelcontextprotocol/clientCapabilities': {},
      };
      const controller = new AbortController();
      const response = fetch(fx.h.mcpUrl, {
        method: 'POST',
        signal: controller.signal,
        headers: {
          authorization: `Bearer ${access}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...(modern
            ? {
                'mcp-protocol-version': '2026-07-28',
                'mcp-method': 'tools/call',
                'mcp-name': 'start_agent_run',
              }
            : {}),
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: {
            name: 'start_agent_run',
            arguments: { question: 'Dropped connection?' },
            ...(modern ? { _meta: meta } : {}),
          },
        }),
      }).then((r) => r.text());
      await until(
        () => record(upstreamToken),
        (r) => r.runs.length === 1,
      );
      controller.abort();
      await expect(response).rejects.toThrow();
      // Long enough for a cancel to reach the sandbox had one been sent.
      await new Promise((r) => setTimeout(r, 500));
      expect((await record(upstreamToken)).runs[0].status).not.toBe('failed');
      expect((await requests(upstreamToken)).some((r) => r.path.endsWith('/cancel'))).toBe(false);
    },
  );
});
