import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  both,
  clientFor,
  RUN,
  RUN_STEPS,
  SEARCH,
  SEARCH_STEPS,
  type Stack,
  stack,
  walk,
} from './wire-stacks.js';

/**
 * Waiting tool calls are answered outside the SDK's per-request server (src/mcp/waiting-call.ts); this
 * proves the wire did not change. Two stacks, each a sandbox and a server, one on the plain SDK path
 * (`detachWaitingCalls: false`) and one on the detached path, get the same requests in the same order
 * from real v1 and v2 clients and raw HTTP, with each sandbox's clock frozen at the same instant and
 * stepped the same way. Every tools/call answer is recorded as sent (status, headers, the body as
 * decoded) and must be byte-identical, the request id and date headers aside.
 */
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
