import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type AnyClient,
  connectV1,
  connectV2,
  type Harness,
  type Json,
  startHarness,
  textOf,
} from '../helpers/harness.js';

/**
 * Waiting, progress, cancellation, faults, errors, scopes, size caps and audit, against the sandbox.
 * Short limits so every path is reached quickly: one retry, 1.5 s waits. The upstream timeout (2 s)
 * leaves an ordinary call seconds of room on a loaded machine (at 400 ms, calls timed out under load);
 * the latency fault that must time out is well past it.
 */
let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    upstreamTimeoutMs: 2_000,
    upstreamMaxRetries: 1,
    searchMaxWaitMs: 1_500,
    runMaxWaitMs: 1_500,
    resultsGraceMs: 400,
    maxResultBytes: 20_000,
  });
});
afterAll(async () => {
  await h?.close();
});
afterEach(async () => {
  await h.control('DELETE', '/faults');
  await h.control('POST', '/clock', { freeze: false });
});

async function session(
  connect: typeof connectV2 = connectV2,
  cred: { credits?: number; producer?: boolean } = { producer: true },
  scopes?: Json,
) {
  const upstreamToken = await h.credential(cred);
  const client = await connect(h.mcpUrl, await h.token({ upstreamToken, ...(scopes ? { scopes } : {}) }));
  return { upstreamToken, client };
}

const record = (token: string) => h.control('GET', `/credentials/${token}`);
const requests = async (token: string) =>
  (await h.control('GET', `/credentials/${token}/requests`)).requests as Json[];

async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, ms = 3_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (ok(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
}

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
    await h.control('PATCH', `/credentials/${s.upstreamToken}`, { speed: 'demo' });
    // Sandbox time runs 10x faster than ours: the 4 s demo search takes ~0.4 s.
    await h.control('POST', '/clock', { freeze: true });
    const ticker = setInterval(() => {
      h.control('POST', '/clock', { advance_ms: 500 }).catch(() => {});
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

  it('a cancelled start_agent_run leaves the run failed (cancelled) upstream', async () => {
    const s = await session(connect);
    client = s.client;
    await h.control('PATCH', `/credentials/${s.upstreamToken}`, { speed: 'demo' });
    const controller = new AbortController();
    const call = client.callTool(
      { name: 'start_agent_run', arguments: { question: 'Will it rain on the parade?' } },
      { signal: controller.signal },
    );
    const started = await until(
      () => record(s.upstreamToken),
      (r) => r.runs.length === 1,
    );
    expect(started.runs[0].status).not.toBe('failed');
    controller.abort();
    await expect(call).rejects.toThrow();
    const after = await until(
      () => record(s.upstreamToken),
      (r) => r.runs[0].status === 'failed',
    );
    expect(after.runs[0].status).toBe('failed');
    expect(
      (await requests(s.upstreamToken)).some((r) => r.method === 'POST' && r.path.endsWith('/cancel')),
    ).toBe(true);
  });
});

describe('client disconnects', () => {
  it.each([
    ['2026-07-28', true],
    ['2025 era', false],
  ])(
    'a client that drops the connection mid-wait gets its agent run cancelled upstream (%s)',
    async (_l, modern) => {
      const upstreamToken = await h.credential({ speed: 'demo' });
      const access = await h.token({ upstreamToken });
      const meta = {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
        'io.modelcontextprotocol/clientCapabilities': {},
      };
      const controller = new AbortController();
      const response = fetch(h.mcpUrl, {
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
      const after = await until(
        () => record(upstreamToken),
        (r) => r.runs[0].status === 'failed',
      );
      expect(after.runs[0].status).toBe('failed');
    },
  );
});

describe('waiting', () => {
  it('past the wait limit a search returns its id and the tool to call later, not an error', async () => {
    const { upstreamToken, client } = await session();
    await h.control('PATCH', `/credentials/${upstreamToken}`, { speed: 'demo' });
    const started = Date.now();
    const result = await client.callTool({
      name: 'submit_keyword_search',
      arguments: { query: 'slow search' },
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_400);
    expect(result.isError).toBeFalsy();
    const s = result.structuredContent;
    expect(s.completed).toBe(false);
    expect(s.search_id).toBeGreaterThan(0);
    expect(s.next_step).toMatch(new RegExp(`get_keyword_search with search_id ${s.search_id}`));
    await client.close();
  });

  it('past the wait limit an agent run returns its id and status', async () => {
    const { upstreamToken, client } = await session();
    await h.control('PATCH', `/credentials/${upstreamToken}`, { speed: 'demo' });
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
    await h.control('PATCH', `/credentials/${upstreamToken}`, { speed: 'demo' });
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
    await h.control('PUT', '/faults', { token: upstreamToken, results_lag_ms: 250 });
    const ok = await client.callTool({
      name: 'submit_keyword_search',
      arguments: { query: 'lagging results' },
    });
    expect(ok.structuredContent.completed).toBe(true);
    expect(ok.structuredContent.results).toBeTruthy();

    await h.control('PUT', '/faults', { token: upstreamToken, results_lag_ms: 60_000 });
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
    await h.control('PUT', '/faults', { token: upstreamToken, backend_unavailable: true });
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
    await h.control('PUT', '/faults', {
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
    expect(s.next_step).toMatch(
      new RegExp(
        `Reading the search's status failed \\(server 500\\).*get_keyword_search with search_id ${s.search_id}`,
      ),
    );
    await client.close();
  });

  it('a failed search is a completed result saying so', async () => {
    const { upstreamToken, client } = await session();
    await h.control('PUT', '/faults', { token: upstreamToken, fail_searches: true });
    const result = await client.callTool({
      name: 'submit_user_search',
      arguments: { query: 'x', platform: 'twitter' },
    });
    expect(result.structuredContent.status).toBe('failed');
    expect(textOf(result)).toMatch(/failed/);
    await client.close();
  });
});

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
    await h.control('PUT', '/faults', {
      token: upstreamToken,
      error_rate: 1,
      error_status: 503,
      remaining: 1,
    });
    const retried = await client.callTool({ name: 'usage', arguments: {} });
    expect(retried.isError).toBeFalsy();
    await h.control('PUT', '/faults', { token: upstreamToken, error_rate: 1, error_status: 502 });
    const failed = await client.callTool({ name: 'list_agent_runs', arguments: {} });
    expect(failed.isError).toBe(true);
    expect(textOf(failed)).toMatch(/internal error \(502\).*Retry in a minute/);
  });

  it('latency under the timeout is waited out; over it is a timeout with retry advice', async () => {
    await h.control('PUT', '/faults', { token: upstreamToken, latency_ms: 150 });
    expect((await client.callTool({ name: 'get_integration_setup', arguments: {} })).isError).toBeFalsy();
    await h.control('PUT', '/faults', { token: upstreamToken, latency_ms: 5_000 });
    const slow = await client.callTool({ name: 'get_integration_setup', arguments: {} });
    expect(slow.isError).toBe(true);
    expect(textOf(slow)).toMatch(/did not answer in time.*retry/i);
  });

  it('429 names the wait', async () => {
    await h.control('PUT', '/faults', { token: upstreamToken, rate_limit: true, retry_after_s: 30 });
    const limited = await client.callTool({ name: 'get_keyword_searches', arguments: {} });
    expect(limited.isError).toBe(true);
    expect(textOf(limited)).toMatch(/rate limiting.*Wait 30 seconds/);
  });

  it('a hanging upstream is a timeout', async () => {
    await h.control('PUT', '/faults', { token: upstreamToken, hang: true });
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
    expect(textOf(r)).toMatch(/Out of credits.*needs 1 credit\(s\) and 0 are available/);
    const run = await client.callTool({
      name: 'start_agent_run',
      arguments: { question: 'q', available_credits: 2 },
    });
    expect(textOf(run)).toMatch(/needs 2 credit\(s\) and 0 are available/);
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
    const client = await connectV2(h.mcpUrl, await h.token({ upstreamToken: 'sbx_not_a_real_token' }));
    const r = await client.callTool({ name: 'usage', arguments: {} });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toContain(`${h.server.config.publicUrl}/account/credentials`);
    expect(textOf(r)).toMatch(/rejected \(401\)/);
    expect(textOf(r)).not.toContain('sbx_not_a_real_token');
    await client.close();
  });

  it('no linked credential: link it first, nothing sent upstream', async () => {
    const client = await connectV2(h.mcpUrl, await h.token({ upstreamToken: null }));
    const r = await client.callTool({ name: 'get_keyword_searches', arguments: {} });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/No upstream API credentials are linked/);
    expect(textOf(r)).toContain(`${h.server.config.publicUrl}/account/credentials`);
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
      ['get_keyword_search', { search_id: '12' }],
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

describe('scopes', () => {
  it.each([
    ['v2', connectV2],
    ['v1', connectV1],
  ])('a grant without searches:write does not list the submit tools (%s)', async (_l, connect) => {
    const { client } = await session(connect, { producer: true }, ['searches:read', 'agent:read']);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).not.toContain('submit_keyword_search');
    expect(names).not.toContain('start_agent_run');
    expect(names).toContain('get_keyword_search');
    expect(names).toContain('list_agent_runs');
    expect(names).not.toContain('usage');
    expect(names.length).toBe(14);
    await expect(
      client.callTool({ name: 'submit_keyword_search', arguments: { query: 'not allowed' } }),
    ).rejects.toThrow();
    await client.close();
  });
});

describe('scopes over raw HTTP', () => {
  it('a tools/call outside the grant is HTTP 403 insufficient_scope, before any upstream call', async () => {
    const upstreamToken = await h.credential();
    const access = await h.token({ upstreamToken, scopes: ['searches:read'] });
    const res = await fetch(h.mcpUrl, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${access}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'start_agent_run', arguments: { question: 'not allowed' } },
      }),
    });
    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toMatch(/insufficient_scope.*agent:write/);
    await res.text();
    expect(await requests(upstreamToken)).toEqual([]);
  });
});

describe('result shaping', () => {
  it('caps a full result, says what was cut and where the rest is, and marks posts as untrusted', async () => {
    const { client, upstreamToken } = await session();
    const r = await client.callTool({
      name: 'submit_keyword_search',
      arguments: { query: 'big result', max_post: 100, detail: 'full' },
    });
    const text = textOf(r);
    const json = text.slice(text.indexOf('{'));
    expect(Buffer.byteLength(json)).toBeLessThanOrEqual(20_000);
    const truncated = r.structuredContent._truncated as Json[];
    expect(truncated.length).toBeGreaterThan(0);
    for (const t of truncated) expect(t.kept).toBeLessThan(t.total);
    expect(text).toMatch(/Result truncated to fit 20 KB \(.*items kept/);
    expect(text).toMatch(/user-generated content/);

    // A trimmed posts array continues in the posts tool at the offset the report names.
    const id = r.structuredContent.search_id;
    const twitter = truncated.find((t) => t.path === 'results.posts.twitter');
    expect(twitter?.rest).toBe(
      `get_keyword_search_posts_data with search_id ${id}, platform "twitter", offset ${twitter?.kept}`,
    );
    const upstream: Json = await (
      await fetch(`${h.sandbox.searchUrl}/api/iq/keyword_search/${id}/posts_data?platform=twitter`, {
        headers: { 'X-SERVICE-TOKEN': upstreamToken, 'X-SERVICE-USER-ID': 'analyst-1' },
      })
    ).json();
    const kept = r.structuredContent.results.posts.twitter.map((p: Json) => p.l);
    const rest = await client.callTool({
      name: 'get_keyword_search_posts_data',
      arguments: { search_id: id, platform: 'twitter', offset: twitter?.kept, limit: 500 },
    });
    const urls = [...kept, ...rest.structuredContent.posts.map((p: Json) => p.url)];
    expect(urls).toEqual(upstream.posts.map((p: Json) => p.post_url));

    const page = await client.callTool({
      name: 'get_keyword_search_posts_data',
      arguments: { search_id: id, limit: 2 },
    });
    expect(page.structuredContent.posts.length).toBe(2);
    expect(page.structuredContent._truncated).toBeUndefined();
    await client.close();
  });
});

describe('audit', () => {
  it('writes one tool_call row per call, without arguments', async () => {
    const { client } = await session(connectV2, { credits: 0 });
    await client.callTool({ name: 'get_integration_setup', arguments: {} });
    await client.callTool({ name: 'submit_keyword_search', arguments: { query: 'secret-query-text' } });
    await client.callTool({ name: 'get_agent_run', arguments: { run_id: 'nope' } });
    const rows = (await h.server.sql.all(
      "SELECT * FROM audit_events WHERE kind = 'tool_call' ORDER BY id DESC LIMIT 3",
    )) as Json[];
    expect(rows.map((r) => [r.tool, r.status]).reverse()).toEqual([
      ['get_integration_setup', 'ok'],
      ['submit_keyword_search', '402'],
      ['get_agent_run', 'invalid'],
    ]);
    for (const row of rows) {
      expect(row.user_id).toBeTruthy();
      expect(row.workspace_id).toBeTruthy();
      expect(row.client_id).toBe('test-client');
      expect(row.duration_ms).toBeGreaterThanOrEqual(0);
      expect(JSON.stringify(row)).not.toContain('secret-query-text');
    }
    await client.close();
  });
});
