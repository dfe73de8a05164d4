import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { McpHandlerOptions } from '../../src/mcp/handler.js';
import { type Harness, type Json, startHarness } from './harness.js';

/**
 * Waiting tool calls are answered outside the SDK's per-request server (src/mcp/waiting-call.ts); this
 * proves the wire did not change. Two stacks, each a sandbox and a server, one on the plain SDK path
 * (`detachWaitingCalls: false`) and one on the detached path, get the same requests in the same order
 * from real v1 and v2 clients and raw HTTP, with each sandbox's clock frozen at the same instant and
 * stepped the same way. Every tools/call answer is recorded as sent (status, headers, the body as
 * decoded) and must be byte-identical, the request id and date headers aside.
 */
const T0 = '2026-03-02T10:00:00.000Z';
const SLOW = { searchMaxWaitMs: 30_000, runMaxWaitMs: 30_000, sseKeepAliveMs: 60_000 };

interface Recorded {
  status: number;
  headers: Array<[string, string]>;
  body: Promise<string>;
}

interface Stack {
  h: Harness;
  recorded: Recorded[];
  upstream: string;
  access: string;
}

async function stack(options: McpHandlerOptions): Promise<Stack> {
  const h = await startHarness({ ...SLOW, ...options });
  const upstream = await h.credential({ speed: 'demo', producer: true });
  const access = await h.token({ upstreamToken: upstream });
  await h.control('POST', '/clock', { freeze: true, set: T0 });
  return { h, recorded: [], upstream, access };
}

/** Differ by time, request or the random run ids (and so the compressed length); compared without. */
const IGNORED = new Set(['date', 'x-request-id', 'content-length']);
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

/**
 * The body of a tools/call answer up to and including its JSON-RPC response (the whole body for JSON).
 * The recorder stops there: its branch of the tee'd body is not closed when the client ends its own
 * early, on either path.
 */
async function answerOf(body: ReadableStream<Uint8Array>, id: unknown): Promise<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return text + decoder.decode();
      text += decoder.decode(value, { stream: true });
      const frames = text.split('\n\n').slice(0, -1);
      const last = frames.at(-1)?.match(/^data: (.*)$/m)?.[1];
      const message = last ? (JSON.parse(last) as Json) : undefined;
      if (message?.id === id && ('result' in message || 'error' in message)) return text;
    }
  } catch (error) {
    return `${text}(stream failed: ${String(error)})`;
  } finally {
    // Not awaited: a tee branch's cancel settles only once the other branch is cancelled too.
    reader.cancel().catch(() => {});
  }
}

/** A fetch that records every tools/call answer (the client still reads it as sent). */
function recording(s: Stack): typeof fetch {
  return async (input, init) => {
    const res = await fetch(input, init);
    const sent = typeof init?.body === 'string' ? (JSON.parse(init.body) as Json) : undefined;
    if (sent?.method !== 'tools/call' || !res.body) return res;
    const [mine, theirs] = res.body.tee();
    s.recorded.push({
      status: res.status,
      headers: [...res.headers].filter(([k]) => !IGNORED.has(k)),
      body: answerOf(mine, sent.id).then((text) => text.replace(UUID, '<uuid>')),
    });
    return new Response(theirs, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}

async function clientFor(s: Stack, era: 'v1' | 'v2') {
  const init = { requestInit: { headers: { authorization: `Bearer ${s.access}` } }, fetch: recording(s) };
  if (era === 'v2') {
    const client = new ClientV2({ name: 'wire', version: '1' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(new TransportV2(new URL(s.h.mcpUrl), init));
    return client as unknown as { callTool(p: Json, o?: Json): Promise<Json>; close(): Promise<void> };
  }
  const client = new ClientV1({ name: 'wire', version: '1' });
  await client.connect(new TransportV1(new URL(s.h.mcpUrl), init));
  return {
    callTool: (p: Json, o?: Json) => client.callTool(p, undefined, o),
    close: () => client.close(),
  };
}

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  const end = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Upstream reads of the credential's jobs so far (the sandbox's request log). */
async function polls(s: Stack): Promise<number> {
  const log = (await s.h.control('GET', `/credentials/${s.upstream}/requests`)).requests as Json[];
  return log.filter((r) => r.method === 'GET' && /\/(keyword_search|search|runs)\/[\w-]+$/.test(r.path))
    .length;
}

/** Steps the frozen sandbox clock, then waits until the server has read the job twice since. */
async function step(s: Stack, ms: number): Promise<void> {
  await s.h.control('POST', '/clock', { advance_ms: ms });
  const seen = await polls(s);
  await until(async () => (await polls(s)) >= seen + 2, 'two polls after a clock step');
}

/**
 * Runs `call` (which starts a waiting tool call) and walks the job through its states; the last step
 * ends it.
 */
async function walk(s: Stack, call: () => Promise<unknown>, steps: number[]): Promise<void> {
  const before = await polls(s);
  const pending = call();
  await until(async () => (await polls(s)) >= before + 2, 'the call to wait');
  for (const ms of steps.slice(0, -1)) await step(s, ms);
  await s.h.control('POST', '/clock', { advance_ms: steps.at(-1) });
  await pending;
}

const SEARCH = { name: 'submit_keyword_search', arguments: { query: 'heat pumps', platforms: ['twitter'] } };
const SEARCH_STEPS = [2_000, 3_000];
const RUN = { name: 'start_agent_run', arguments: { question: 'Are heat pumps trending?' } };
const RUN_STEPS = [3_000, 9_000, 9_000];

/** The same scenario on both stacks: what each recorded, for comparison. */
async function both(a: Stack, b: Stack, scenario: (s: Stack) => Promise<void>) {
  const from = [a.recorded.length, b.recorded.length];
  await scenario(a);
  await scenario(b);
  const bodies = async (s: Stack, start: number) =>
    Promise.all(
      s.recorded
        .slice(start)
        .map(async (r) => ({ status: r.status, headers: r.headers, body: await r.body })),
    );
  return [await bodies(a, from[0] as number), await bodies(b, from[1] as number)] as const;
}

let sdkPath: Stack;
let detached: Stack;
beforeAll(async () => {
  sdkPath = await stack({ detachWaitingCalls: false });
  detached = await stack({});
});
afterAll(async () => {
  await sdkPath?.h.close();
  await detached?.h.close();
});

describe.each(['v2', 'v1'] as const)('the %s client sees the same bytes on both paths', (era) => {
  it.each([
    ['a search, without progress', SEARCH, SEARCH_STEPS, false],
    ['a search, with progress', SEARCH, SEARCH_STEPS, true],
    ['an agent run, with progress', RUN, RUN_STEPS, true],
    ['an agent run, without progress', RUN, RUN_STEPS, false],
  ] as const)('%s', async (_label, params, steps, progress) => {
    const [sdk, ours] = await both(sdkPath, detached, async (s) => {
      const client = await clientFor(s, era);
      const options = progress ? { onprogress: () => {} } : undefined;
      await walk(s, () => client.callTool(params, options), steps);
      await client.close();
    });
    expect(sdk.length).toBe(1);
    expect(ours).toEqual(sdk);
    const body = sdk[0]?.body ?? '';
    // The paths are what they should be: JSON for a 2026-07-28 call without progress, else events.
    if (era === 'v2' && !progress) expect(body.startsWith('{"result"')).toBe(true);
    else expect(body).toMatch(/^event: message\ndata: /);
    if (progress) expect(body).toContain('notifications/progress');
  });
});
