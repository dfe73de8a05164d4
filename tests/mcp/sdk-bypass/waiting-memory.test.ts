import { request } from 'node:http';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { McpServer } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metrics } from '../../../src/metrics/index.js';
import type { Json } from '../../helpers/harness.js';
import { RUN, rawPost, SEARCH, type Stack, stack, until } from './wire-stacks.js';

/**
 * What a waiting call keeps while it waits: on the path framed by the SDK
 * (src/mcp/sdk-bypass/waiting-framed.ts) the SDK's per-request server of its first exchange must be collectable
 * once the call waits, in both protocol eras, with and without progress. A callback the call keeps, made in a
 * function whose other closures read the SDK's context, shares that context (V8 gives the closures of one
 * call one context): it kept every McpServer, its transport and streams for the whole wait. On the plain path
 * (src/mcp/sdk-bypass/waiting-direct.ts) the answer is written to Node's response: no web stream (and the
 * adapter's loop reading it) may stay alive, and the call has one abort signal.
 */
let s: Stack;
let gc: () => void;
beforeAll(() => {
  setFlagsFromString('--expose-gc');
  gc = runInNewContext('gc') as () => void;
});

const waiting = async () => (await metrics.waitingCalls.get()).values[0]?.value ?? 0;

/** Collects between turns: a WeakRef is cleared by a collection after the job that read it. */
async function collect() {
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** Starts a tools/call and resolves once it waits (the server in this process counts it). */
async function startWaiting(era: 'modern' | 'legacy', id: number, params: Json, token?: number) {
  const before = await waiting();
  void rawPost(s, era, { id, method: 'tools/call', params }, token);
  await until(async () => (await waiting()) > before, 'the call to wait');
}

describe('a waiting call framed by the SDK', () => {
  // Closed once this block is done: its calls' polls would otherwise run on during the next one.
  beforeAll(async () => {
    s = await stack({ sdkBypass: 'framed' });
  });
  afterAll(async () => {
    await s?.h.close();
  });

  it('keeps none of the per-request servers that started it while it waits', async () => {
    const connect = McpServer.prototype.connect;
    const servers: Array<WeakRef<McpServer>> = [];
    McpServer.prototype.connect = function (this: McpServer, ...args: Parameters<typeof connect>) {
      servers.push(new WeakRef(this));
      return connect.apply(this, args);
    };
    const first = s.recorded.length;
    try {
      await startWaiting('legacy', 61, SEARCH);
      await startWaiting('legacy', 62, RUN, 7);
      await startWaiting('modern', 63, SEARCH, 8);
    } finally {
      McpServer.prototype.connect = connect;
    }
    let answered = 0;
    for (const r of s.recorded.slice(first)) void r.body.then(() => answered++);
    expect(servers).toHaveLength(3);
    await collect();
    expect(servers.filter((ref) => ref.deref() !== undefined)).toHaveLength(0);
    // All three still wait: none has its answer yet.
    await new Promise((resolve) => setImmediate(resolve));
    expect(s.recorded.length - first).toBe(3);
    expect(answered).toBe(0);
  });
});

/**
 * A tools/call sent with node:http, which makes no web streams or abort signals of its own (a fetch
 * client would, in this same process); resolves with the answer's body once the server has answered.
 */
function postRaw(
  target: Stack,
  era: 'modern' | 'legacy',
  id: number,
  params: Json,
  progressToken?: number,
): Promise<string> {
  const meta: Json = era === 'modern' ? { ...MODERN_ENVELOPE } : {};
  if (progressToken !== undefined) meta.progressToken = progressToken;
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: Object.keys(meta).length > 0 ? { ...params, _meta: meta } : params,
  });
  const headers: Record<string, string> = {
    authorization: `Bearer ${target.access}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': era === 'modern' ? '2026-07-28' : '2025-06-18',
    ...(era === 'modern' ? { 'mcp-method': 'tools/call', 'mcp-name': params.name } : {}),
  };
  return new Promise((resolve, reject) => {
    const req = request(target.h.mcpUrl, { method: 'POST', headers }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk: string) => {
        text += chunk;
      });
      res.on('end', () => resolve(text));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const MODERN_ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

describe('a plain waiting call, answered without the SDK', () => {
  it('keeps no web stream and one abort signal while it waits, in both eras', async () => {
    // No poll falls in the test: a poll in flight holds abort signals of its own for a moment.
    const direct = await stack({ pollInitialMs: 600_000, pollMaxMs: 600_000 });
    const streams: Array<WeakRef<ReadableStream>> = [];
    const signals: Array<WeakRef<AbortSignal>> = [];
    const { ReadableStream: Stream, AbortController: Controller } = globalThis;
    const AnyStream = Stream as unknown as new (...args: unknown[]) => ReadableStream;
    globalThis.ReadableStream = class extends AnyStream {
      constructor(...args: unknown[]) {
        super(...args);
        streams.push(new WeakRef(this));
      }
    } as unknown as typeof ReadableStream;
    globalThis.AbortController = class extends Controller {
      constructor() {
        super();
        signals.push(new WeakRef(this.signal));
      }
    };
    const answers: Array<Promise<string>> = [];
    try {
      const start = async (era: 'modern' | 'legacy', id: number, params: Json, token?: number) => {
        const before = await waiting();
        answers.push(postRaw(direct, era, id, params, token));
        await until(async () => (await waiting()) > before, 'the call to wait');
      };
      // An event stream from the start; one from the first progress notification; JSON at the end.
      await start('legacy', 71, SEARCH);
      await start('modern', 72, SEARCH, 4);
      await start('modern', 73, RUN);
    } finally {
      globalThis.ReadableStream = Stream;
      globalThis.AbortController = Controller;
    }
    await collect();
    const live = (refs: Array<WeakRef<object>>) => refs.filter((ref) => ref.deref() !== undefined).length;
    // Node's response carries the event streams, and the client's leaving is heard from it: neither
    // a web stream nor the request's abort signal. The call's own signal is the only one: a 2025-era
    // cancel aborts it directly (src/mcp/cancellation/inflight.ts).
    expect(live(streams)).toBe(0);
    expect(live(signals)).toBe(3);
    await direct.h.close();
    for (const answer of await Promise.all(answers)) expect(answer).toContain('"completed":false');
  });
});
