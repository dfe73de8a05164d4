import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Json } from '../../helpers/harness.js';
import { polls, rawPost, recordedBy, SEARCH, type Stack, stack, until } from './wire-stacks.js';

/**
 * The detached waiting-call paths (src/mcp/sdk-bypass/waiting-framed.ts, framed by the SDK at both ends, and
 * src/mcp/sdk-bypass/waiting-direct.ts, without the SDK) against the plain SDK path, byte for byte, where a wait
 * ends other than by the job finishing: a 2025-era cancel in another POST, a status read that fails
 * while waiting, a call refused before it waits, and shutdown returning the handle. Raw HTTP in both
 * protocol eras, with and without a progress token.
 */
const RUN = {
  name: 'start_agent_run',
  arguments: { question: 'Will it rain on the parade?', force_new: true },
};

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
let framed: Stack;
let direct: Stack;
/** The three paths again, with a search's wait limited to 5 s. */
let shortWaits: [Stack, Stack, Stack];
const SHORT = { searchMaxWaitMs: 5_000 };
beforeAll(async () => {
  sdkPath = await stack({ sdkBypass: 'off' });
  framed = await stack({ sdkBypass: 'framed' });
  direct = await stack({});
  shortWaits = [
    await stack({ ...SHORT, sdkBypass: 'off' }),
    await stack({ ...SHORT, sdkBypass: 'framed' }),
    await stack(SHORT),
  ];
});
afterAll(async () => {
  await sdkPath?.h.close();
  await framed?.h.close();
  await direct?.h.close();
  for (const s of shortWaits ?? []) await s.h.close();
});

/** Recorded answers with the open circuit's remaining seconds replaced by a placeholder. */
function withoutCircuitSeconds<T>(recorded: T): T {
  return JSON.parse(
    JSON.stringify(recorded)
      .replace(/stopped asking it for \d+ s/g, 'stopped asking it for N s')
      .replace(/In \d+ s: /g, 'In N s: '),
  ) as T;
}

/** The scenario on the SDK path and on both detached paths: what each recorded. */
async function onEveryPath(
  scenario: (s: Stack) => Promise<void>,
  [sdk, viaSdk, viaNone]: [Stack, Stack, Stack] = [sdkPath, framed, direct],
) {
  return [
    await recordedBy(sdk, scenario),
    await recordedBy(viaSdk, scenario),
    await recordedBy(viaNone, scenario),
  ] as const;
}

describe('waits that end early look the same on both paths', () => {
  it.each([
    [undefined, 'without progress'],
    [5, 'with progress'],
  ] as const)('a 2025-era cancel sent in another POST (%s, %s)', async (progressToken, _label) => {
    const [sdk, viaSdk, viaNone] = await onEveryPath(async (s) => {
      const call = await startWaiting(s, 'legacy', 41, RUN, progressToken);
      await rawPost(s, 'legacy', {
        method: 'notifications/cancelled',
        params: { requestId: 41, reason: 'changed my mind' },
      });
      await call.answered;
      await settled(s);
    });
    expect(sdk.length).toBe(1);
    expect(viaSdk).toEqual(sdk);
    expect(viaNone).toEqual(sdk);
    // The cancel reached the call and stopped its wait; the run was not cancelled upstream.
    expect(sdk[0]?.body).not.toContain('"cancelled":true');
    for (const path of [sdkPath, framed, direct]) {
      const log = (await path.h.control('GET', `/credentials/${path.upstream}/requests`)).requests as Json[];
      expect(log.some((r) => r.path.endsWith('/cancel'))).toBe(false);
    }
  });

  it.each([
    ['legacy', 9],
    ['modern', 9],
    ['modern', undefined],
  ] as const)('a status read that fails while waiting (%s, progress token %s)', async (era, token) => {
    // A wait polls on through failing reads until its limit, then answers with the failure: stacks
    // with a short limit keep the three paths' waits to seconds.
    const [sdk, viaSdk, viaNone] = await onEveryPath(async (s) => {
      const call = await startWaiting(s, era, 42, SEARCH, token);
      await s.h.control('PUT', '/faults', { token: s.upstream, error_rate: 1, error_status: 503 });
      await call.answered;
      await settled(s);
      await s.h.control('DELETE', '/faults');
    }, shortWaits);
    expect(sdk.length).toBe(1);
    // The circuit's remaining seconds depend on when each path's wait ended, so they are compared as a
    // placeholder; every other byte must match.
    expect(withoutCircuitSeconds(viaSdk)).toEqual(withoutCircuitSeconds(sdk));
    expect(withoutCircuitSeconds(viaNone)).toEqual(withoutCircuitSeconds(sdk));
    // Not an error: the search was created, and the answer says how to read it later.
    expect(sdk[0]?.body).toContain('"completed":false');
    // Every read failing, the circuit opened: the answer says so, that nothing is lost, and the next call.
    expect(sdk[0]?.body).toContain('The upstream is not answering');
    expect(sdk[0]?.body).toContain('nothing is lost');
    expect(sdk[0]?.body).toContain('Call get_keyword_search with search_id');
  });

  it.each(['legacy', 'modern'] as const)('a call refused before it waits (%s)', async (era) => {
    const [sdk, viaSdk, viaNone] = await onEveryPath(async (s) => {
      await rawPost(
        s,
        era,
        { id: 43, method: 'tools/call', params: { name: SEARCH.name, arguments: {} } },
        3,
      );
      await settled(s);
    });
    expect(sdk.length).toBe(1);
    expect(viaSdk).toEqual(sdk);
    expect(viaNone).toEqual(sdk);
    expect(sdk[0]?.body).toMatch(/isError|"error"/);
  });
});

describe('shutdown', () => {
  it('answers every waiting call with its handle, the same on both paths', async () => {
    const stacks: [Stack, Stack, Stack] = [
      await stack({ sdkBypass: 'off' }),
      await stack({ sdkBypass: 'framed' }),
      await stack({}),
    ];
    const [sdk, viaSdk, viaNone] = await onEveryPath(async (s) => {
      const search = await startWaiting(s, 'legacy', 44, SEARCH, 1);
      const run = await startWaiting(s, 'modern', 45, RUN);
      const closed = s.h.close();
      await Promise.all([search.answered, run.answered]);
      await settled(s);
      await closed;
    }, stacks);
    expect(sdk.length).toBe(2);
    expect(viaSdk).toEqual(sdk);
    expect(viaNone).toEqual(sdk);
    for (const answer of sdk) expect(answer.body).toContain('"completed":false');
  });
});
