import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { McpServer } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metrics } from '../../src/metrics/index.js';
import type { Json } from './harness.js';
import { RUN, rawPost, SEARCH, type Stack, stack, until } from './wire-stacks.js';

/**
 * What a waiting call keeps while it waits (issue 18): on the path framed by the SDK
 * (src/mcp/waiting-call.ts) the SDK's per-request server of its first exchange must be collectable once
 * the call waits, in both protocol eras, with and without progress. A callback the call keeps, made in
 * a function whose other closures read the SDK's context, shares that context (V8 gives the closures
 * of one call one context): it kept every McpServer, its transport and streams for the whole wait.
 */
let s: Stack;
let gc: () => void;
beforeAll(async () => {
  setFlagsFromString('--expose-gc');
  gc = runInNewContext('gc') as () => void;
  s = await stack({ directWaitingCalls: false });
});
afterAll(async () => {
  await s?.h.close();
});

const waiting = async () => (await metrics.waitingCalls.get()).values[0]?.value ?? 0;

/** Starts a tools/call and resolves once it waits (the server in this process counts it). */
async function startWaiting(era: 'modern' | 'legacy', id: number, params: Json, token?: number) {
  const before = await waiting();
  void rawPost(s, era, { id, method: 'tools/call', params }, token);
  await until(async () => (await waiting()) > before, 'the call to wait');
}

describe('a waiting call framed by the SDK', () => {
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
    // A WeakRef is cleared by a collection after the job that read it: collect between turns.
    for (let i = 0; i < 3; i++) {
      gc();
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(servers.filter((ref) => ref.deref() !== undefined)).toHaveLength(0);
    // All three still wait: none has its answer yet.
    await new Promise((resolve) => setImmediate(resolve));
    expect(s.recorded.length - first).toBe(3);
    expect(answered).toBe(0);
  });
});
