import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Json } from './harness.js';
import { both, polls, rawPost, SEARCH, type Stack, stack, until } from './wire-stacks.js';

/**
 * The detached waiting-call path (src/mcp/waiting-call.ts) against the plain SDK path, byte for byte,
 * where a wait ends other than by the job finishing: a 2025-era cancel in another POST, a status read
 * that fails while waiting, a call refused before it waits, and shutdown returning the handle. Raw
 * HTTP in both protocol eras, with and without a progress token.
 */
const RUN = { name: 'start_agent_run', arguments: { question: 'Will it rain on the parade?' } };

/**
 * Starts a tools/call; resolves once the server polls its job (the call waits) with the call's own
 * pending post (a JSON answer's headers come only with the result).
 */
async function startWaiting(
  s: Stack,
  era: 'modern' | 'legacy',
  id: number,
  params: Json,
  progressToken?: number,
): Promise<{ answered: Promise<Response> }> {
  const before = await polls(s);
  const answered = rawPost(s, era, { id, method: 'tools/call', params }, progressToken);
  await until(async () => (await polls(s)) >= before + 2, 'the call to wait');
  return { answered };
}

/** Every recorded answer finished (its JSON-RPC response, or the end of its stream). */
const settled = (s: Stack) => Promise.all(s.recorded.map((r) => r.body));

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

describe('waits that end early look the same on both paths', () => {
  it.each([
    [undefined, 'without progress'],
    [5, 'with progress'],
  ] as const)('a 2025-era cancel sent in another POST (%s, %s)', async (progressToken, _label) => {
    const [sdk, ours] = await both(sdkPath, detached, async (s) => {
      const call = await startWaiting(s, 'legacy', 41, RUN, progressToken);
      await rawPost(s, 'legacy', {
        method: 'notifications/cancelled',
        params: { requestId: 41, reason: 'changed my mind' },
      });
      await call.answered;
      await settled(s);
    });
    expect(sdk.length).toBe(1);
    expect(ours).toEqual(sdk);
    // The cancel reached the call: the run was cancelled upstream and the answer says so.
    expect(sdk[0]?.body).toContain('"cancelled":true');
  });

  it.each([
    ['legacy', 9],
    ['modern', 9],
    ['modern', undefined],
  ] as const)('a status read that fails while waiting (%s, progress token %s)', async (era, token) => {
    const [sdk, ours] = await both(sdkPath, detached, async (s) => {
      const call = await startWaiting(s, era, 42, SEARCH, token);
      await s.h.control('PUT', '/faults', { token: s.upstream, error_rate: 1, error_status: 503 });
      await call.answered;
      await settled(s);
      await s.h.control('DELETE', '/faults');
    });
    expect(sdk.length).toBe(1);
    expect(ours).toEqual(sdk);
    // Not an error: the search was created, and the answer says how to read it later.
    expect(sdk[0]?.body).toContain('"completed":false');
    expect(sdk[0]?.body).toContain("Reading the search's status failed (server 503)");
  });

  it.each(['legacy', 'modern'] as const)('a call refused before it waits (%s)', async (era) => {
    const [sdk, ours] = await both(sdkPath, detached, async (s) => {
      await rawPost(
        s,
        era,
        { id: 43, method: 'tools/call', params: { name: SEARCH.name, arguments: {} } },
        3,
      );
      await settled(s);
    });
    expect(sdk.length).toBe(1);
    expect(ours).toEqual(sdk);
    expect(sdk[0]?.body).toMatch(/isError|"error"/);
  });
});

describe('shutdown', () => {
  it('answers every waiting call with its handle, the same on both paths', async () => {
    const pair = [await stack({ detachWaitingCalls: false }), await stack({})] as const;
    const [sdk, ours] = await both(pair[0], pair[1], async (s) => {
      const search = await startWaiting(s, 'legacy', 44, SEARCH, 1);
      const run = await startWaiting(s, 'modern', 45, RUN);
      const closed = s.h.close();
      await Promise.all([search.answered, run.answered]);
      await settled(s);
      await closed;
    });
    expect(sdk.length).toBe(2);
    expect(ours).toEqual(sdk);
    for (const answer of sdk) expect(answer.body).toContain('"completed":false');
  });
});
