import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { McpHandlerOptions } from '../../../src/mcp/handler.js';
import { type Harness, type Json, startHarness } from '../../helpers/harness.js';

/**
 * Two stacks for the waiting-call wire tests (waiting-wire*.test.ts), each a sandbox and a server, one
 * on the plain SDK path (`sdkBypass: 'off'`) and one on the detached path, with each sandbox's
 * clock frozen at the same instant and stepped the same way, and every tools/call answer recorded as
 * sent.
 */
export const T0 = '2026-03-02T10:00:00.000Z';
export const SLOW = { searchMaxWaitMs: 30_000, runMaxWaitMs: 30_000, sseKeepAliveMs: 60_000 };

export interface Recorded {
  status: number;
  headers: Array<[string, string]>;
  body: Promise<string>;
}

export interface Stack {
  h: Harness;
  recorded: Recorded[];
  upstream: string;
  access: string;
}

export async function stack(options: McpHandlerOptions): Promise<Stack> {
  const h = await startHarness({ ...SLOW, ...options });
  const upstream = await h.credential({ speed: 'demo', producer: true });
  const access = await h.token({ upstreamToken: upstream });
  await h.control('POST', '/clock', { freeze: true, set: T0 });
  return { h, recorded: [], upstream, access };
}

/** Differ by time, request or the random run ids (and so the compressed length); compared without. */
export const IGNORED = new Set(['date', 'x-request-id', 'content-length']);
export const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

/**
 * The body of a tools/call answer up to and including its JSON-RPC response (the whole body for JSON).
 * The recorder stops there: its branch of the tee'd body is not closed when the client ends its own
 * early, on either path.
 */
export async function answerOf(body: ReadableStream<Uint8Array>, id: unknown): Promise<string> {
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
export function recording(s: Stack): typeof fetch {
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

export async function clientFor(s: Stack, era: 'v1' | 'v2') {
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

export async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  const end = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Upstream reads of the credential's jobs so far (the sandbox's request log). */
export async function polls(s: Stack): Promise<number> {
  const log = (await s.h.control('GET', `/credentials/${s.upstream}/requests`)).requests as Json[];
  return log.filter((r) => r.method === 'GET' && /\/(keyword_search|search|runs)\/[\w-]+$/.test(r.path))
    .length;
}

/** Steps the frozen sandbox clock, then waits until the server has read the job twice since. */
export async function step(s: Stack, ms: number): Promise<void> {
  await s.h.control('POST', '/clock', { advance_ms: ms });
  const seen = await polls(s);
  await until(async () => (await polls(s)) >= seen + 2, 'two polls after a clock step');
}

/**
 * Runs `call` (which starts a waiting tool call) and walks the job through its states; the last step
 * ends it.
 */
export async function walk(s: Stack, call: () => Promise<unknown>, steps: number[]): Promise<void> {
  const before = await polls(s);
  const pending = call();
  await until(async () => (await polls(s)) >= before + 2, 'the call to wait');
  for (const ms of steps.slice(0, -1)) await step(s, ms);
  await s.h.control('POST', '/clock', { advance_ms: steps.at(-1) });
  await pending;
}

/** Each scenario makes its own search and run: `force_new: true`, or the second would reuse the first's. */
export const SEARCH = {
  name: 'submit_keyword_search',
  arguments: { query: 'heat pumps', platforms: ['twitter'], force_new: true },
};
export const SEARCH_STEPS = [2_000, 3_000];
export const RUN = {
  name: 'start_agent_run',
  arguments: { question: 'Are heat pumps trending?', force_new: true },
};
export const RUN_STEPS = [3_000, 9_000, 9_000];

/** What a stack recorded while `scenario` ran on it. */
export async function recordedBy(s: Stack, scenario: (s: Stack) => Promise<void>) {
  const start = s.recorded.length;
  await scenario(s);
  return bodiesOf(s, start);
}

/** The same scenario on both stacks: what each recorded, for comparison. */
export async function both(a: Stack, b: Stack, scenario: (s: Stack) => Promise<void>) {
  const from = [a.recorded.length, b.recorded.length];
  await scenario(a);
  await scenario(b);
  return [await bodiesOf(a, from[0] as number), await bodiesOf(b, from[1] as number)] as const;
}

const bodiesOf = (s: Stack, start: number) =>
  Promise.all(
    s.recorded.slice(start).map(async (r) => ({ status: r.status, headers: r.headers, body: await r.body })),
  );

/** The 2026-07-28 request envelope (SEP "stateless requests"): every request states who is calling. */
const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

/** Posts one raw JSON-RPC message to /mcp in either era; tools/call answers are recorded (the body is read here). */
export async function rawPost(
  s: Stack,
  era: 'modern' | 'legacy',
  message: Json,
  progressToken?: number,
): Promise<Response> {
  const params = { ...(message.params ?? {}) };
  const meta = {
    ...(era === 'modern' ? MODERN_META : {}),
    ...(progressToken === undefined ? {} : { progressToken }),
  };
  if (Object.keys(meta).length > 0) params._meta = meta;
  const headers: Record<string, string> = {
    authorization: `Bearer ${s.access}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': era === 'modern' ? '2026-07-28' : '2025-06-18',
  };
  if (era === 'modern') {
    headers['mcp-method'] = message.method;
    if (typeof params.name === 'string') headers['mcp-name'] = params.name;
  }
  const res = await recording(s)(s.h.mcpUrl, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', ...message, params }),
  });
  // Read the caller's branch too, so the tee is drained on both sides.
  void res.text().catch(() => {});
  return res;
}
