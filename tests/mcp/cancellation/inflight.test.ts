import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/logger.js';
import { InflightCalls } from '../../../src/mcp/cancellation/inflight.js';

/**
 * The registry a 2025-era `notifications/cancelled` (sent in another POST) finds its call in
 * (src/mcp/cancellation/inflight.ts), on this instance alone.
 */
const cancel = (requestId: string | number) => ({
  jsonrpc: '2.0',
  method: 'notifications/cancelled',
  params: { requestId },
});

describe('the cancellation registry', () => {
  it("aborts the call a cancel names: the call's own controller, or one that follows its signal", async () => {
    const calls = new InflightCalls(undefined, createLogger('silent'));
    const own = new AbortController();
    const registered = calls.register('grant-1', 7, own);
    // A call that owns its controller keeps one signal: the registry aborts that one.
    expect(registered.signal).toBe(own.signal);
    const sdk = new AbortController();
    const followed = calls.register('grant-1', '7', sdk.signal);
    expect(followed.signal).not.toBe(sdk.signal);

    // 7 and "7" are different ids (JSON-RPC 2.0 §4); another grant's cancel reaches neither.
    expect(await calls.cancelFrom(cancel(7), 'grant-2')).toBe(0);
    expect(await calls.cancelFrom(cancel(7), 'grant-1')).toBe(1);
    expect(own.signal.aborted).toBe(true);
    expect(followed.signal.aborted).toBe(false);
    sdk.abort();
    expect(followed.signal.aborted).toBe(true);

    registered.release();
    followed.release();
    expect(calls.size).toBe(0);
  });

  it('ignores a cancel two calls of one grant could mean, until one of them ends', async () => {
    const calls = new InflightCalls(undefined, createLogger('silent'));
    const first = new AbortController();
    const second = new AbortController();
    const a = calls.register('grant-1', 3, first);
    const b = calls.register('grant-1', 3, second);
    expect(await calls.cancelFrom([cancel(3)], 'grant-1')).toBe(0);
    expect(first.signal.aborted || second.signal.aborted).toBe(false);

    a.release();
    expect(calls.size).toBe(1);
    expect(await calls.cancelFrom(cancel(3), 'grant-1')).toBe(1);
    expect(second.signal.aborted).toBe(true);
    expect(first.signal.aborted).toBe(false);
    b.release();
    expect(calls.size).toBe(0);
  });
});
