import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type AnyClient,
  connectV1,
  type Harness,
  type Json,
  startHarness,
  textOf,
} from '../../helpers/harness.js';

/**
 * Every answer on time, counted from the request's arrival: the upstream create, the polls and the
 * answer all fit the wait limit, however slow the upstream. The limit here is 6 s (45 s in production)
 * and the upstream answers each request in 2.7 s (20 s against 45 s), creates more slowly than the
 * limit, or hangs its polls. The client is the v1 SDK's with a request time-out of the limit plus
 * 2 s: a call that ran past it would fail with "Request timed out" (and, as the SDK does, cancel).
 */
const LIMIT_MS = 6_000;
const CLIENT_TIMEOUT_MS = LIMIT_MS + 2_000;

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ runMaxWaitMs: LIMIT_MS, searchMaxWaitMs: LIMIT_MS, upstreamTimeoutMs: 20_000 });
});
afterAll(async () => {
  await h?.close();
});
afterEach(async () => {
  await h.control('DELETE', '/faults');
  await h.control('POST', '/clock', { freeze: false });
});

const ARGS = { question: 'Is the upstream slow today?' };

async function person(): Promise<{ token: string; client: AnyClient }> {
  const token = await h.credential({ speed: 'demo' });
  return { token, client: await connectV1(h.mcpUrl, await h.token({ upstreamToken: token })) };
}

const runsOf = async (token: string) => (await h.control('GET', `/credentials/${token}`)).runs as Json[];
const call = (client: AnyClient, name: string, args: Json) =>
  client.callTool({ name, arguments: args }, { timeout: CLIENT_TIMEOUT_MS });

/** Reads until `ok` holds or `ms` pass, then returns the last read (the test asserts on it). */
async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (ok(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The run finishes upstream; get_agent_run with wait reaches its report. */
async function reachesReport(client: AnyClient, token: string, runId: string) {
  await h.control('DELETE', '/faults');
  await h.control('POST', '/clock', { advance_ms: 60_000 });
  const done = await call(client, 'get_agent_run', { run_id: runId, wait: true });
  expect(done.structuredContent.status).toBe('completed');
  expect(await runsOf(token)).toHaveLength(1);
}

describe('every answer within the wait limit, counted from arrival', () => {
  it('each upstream request takes 2.7 s: start_agent_run answers in time with the run and the next call', async () => {
    const { token, client } = await person();
    try {
      await h.control('POST', '/clock', { freeze: true });
      await h.control('PUT', '/faults', { token, latency_ms: 2_700 });
      const first = await call(client, 'start_agent_run', ARGS);
      expect(first.isError).toBeFalsy();
      const runId = first.structuredContent.run_id as string;
      expect(first.structuredContent.next_step).toContain(`get_agent_run with run_id "${runId}"`);
      await reachesReport(client, token, runId);
    } finally {
      await client.close();
    }
  }, 60_000);

  it('a create slower than the limit: the answer says so, the create goes on, the same call finds it', async () => {
    const { token, client } = await person();
    try {
      await h.control('POST', '/clock', { freeze: true });
      await h.control('PUT', '/faults', { token, latency_ms: 9_000, method: 'POST' });
      const first = await call(client, 'start_agent_run', ARGS);
      expect(first.isError).toBe(true);
      expect(textOf(first)).toMatch(/still being created/);
      expect(textOf(first)).toContain('call start_agent_run again with the same arguments');
      // The create goes on in the background and is made once.
      expect(
        await until(
          () => runsOf(token),
          (r) => r.length === 1,
        ),
      ).toHaveLength(1);
      await h.control('DELETE', '/faults');
      const again = await call(client, 'start_agent_run', ARGS);
      expect(again.isError).toBeFalsy();
      const runId = again.structuredContent.run_id as string;
      expect(runId).toBe((await runsOf(token))[0].id);
      await reachesReport(client, token, runId);
    } finally {
      await client.close();
    }
  }, 60_000);

  it('a body that arrives slowly counts: the limit runs from the request, not from the tool', async () => {
    const token = await h.credential({ speed: 'demo' });
    const access = await h.token({ upstreamToken: token });
    await h.control('POST', '/clock', { freeze: true });
    await h.control('PUT', '/faults', { token, latency_ms: 9_000, method: 'POST' });
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'start_agent_run', arguments: ARGS },
    });
    const half = Math.floor(body.length / 2);
    const encoder = new TextEncoder();
    // Half the body now, the rest 4 s later: counted from the tool's start, the answer would come
    // 4 s + the limit after the request arrived, past this client's time-out of the limit plus 1 s.
    const stream = new ReadableStream<Uint8Array>({
      async start(controller) {
        controller.enqueue(encoder.encode(body.slice(0, half)));
        await new Promise((r) => setTimeout(r, 4_000));
        controller.enqueue(encoder.encode(body.slice(half)));
        controller.close();
      },
    });
    const res = await fetch(h.mcpUrl, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${access}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-06-18',
      },
      body: stream,
      duplex: 'half',
      signal: AbortSignal.timeout(LIMIT_MS + 1_000),
    } as RequestInit);
    const text = await res.text();
    expect(res.status).toBe(200);
    expect(text).toMatch(/still being created/);
    // The create goes on in the background, once; let it land before the next test.
    expect(
      await until(
        () => runsOf(token),
        (r) => r.length === 1,
      ),
    ).toHaveLength(1);
  }, 60_000);

  it('a poll that hangs does not hold the call past its limit', async () => {
    const { token, client } = await person();
    try {
      await h.control('POST', '/clock', { freeze: true });
      await h.control('PUT', '/faults', { token, hang: true, method: 'GET' });
      const first = await call(client, 'start_agent_run', ARGS);
      expect(first.isError).toBeFalsy();
      const runId = first.structuredContent.run_id as string;
      expect(first.structuredContent.next_step).toContain(`get_agent_run with run_id "${runId}"`);
      await reachesReport(client, token, runId);
    } finally {
      await client.close();
    }
  }, 60_000);
});
