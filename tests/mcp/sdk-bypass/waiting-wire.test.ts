import { McpServer } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  clientFor,
  RUN,
  RUN_STEPS,
  recordedBy,
  SEARCH,
  SEARCH_STEPS,
  type Stack,
  stack,
  walk,
} from './wire-stacks.js';

/**
 * Waiting tool calls are answered outside the SDK's per-request server: plain calls without any SDK
 * exchange (src/mcp/sdk-bypass/waiting-direct.ts), the rest framed by the SDK at both ends and detached in between
 * (src/mcp/sdk-bypass/waiting-framed.ts); this proves the wire did not change on either. Three stacks, each a sandbox
 * and a server, one on the plain SDK path (`sdkBypass: 'off'`), one detached and framed by the
 * SDK (`sdkBypass: 'framed'`) and one direct, get the same requests in the same order from real
 * v1 and v2 clients and raw HTTP, with each sandbox's clock frozen at the same instant and stepped the
 * same way. Every tools/call answer is recorded as sent (status, headers, the body as decoded) and must
 * be byte-identical, the request id and date headers aside.
 */
let sdkPath: Stack;
let framed: Stack;
let direct: Stack;
beforeAll(async () => {
  sdkPath = await stack({ sdkBypass: 'off' });
  framed = await stack({ sdkBypass: 'framed' });
  direct = await stack({});
});
afterAll(async () => {
  await sdkPath?.h.close();
  await framed?.h.close();
  await direct?.h.close();
});

describe.each(['v2', 'v1'] as const)('the %s client sees the same bytes on every path', (era) => {
  it.each([
    ['a search, without progress', SEARCH, SEARCH_STEPS, false],
    ['a search, with progress', SEARCH, SEARCH_STEPS, true],
    ['an agent run, with progress', RUN, RUN_STEPS, true],
    ['an agent run, without progress', RUN, RUN_STEPS, false],
  ] as const)('%s', async (_label, params, steps, progress) => {
    // The SDK exchanges (per-request servers connected) each call took: the path is proven taken.
    const connect = vi.spyOn(McpServer.prototype, 'connect');
    const exchanges = new Map<Stack, number>();
    const scenario = async (s: Stack) => {
      const client = await clientFor(s, era);
      const options = progress ? { onprogress: () => {} } : undefined;
      const before = connect.mock.calls.length;
      await walk(s, () => client.callTool(params, options), steps);
      exchanges.set(s, connect.mock.calls.length - before);
      await client.close();
    };
    const sdk = await recordedBy(sdkPath, scenario);
    const viaSdk = await recordedBy(framed, scenario);
    const viaNone = await recordedBy(direct, scenario);
    connect.mockRestore();
    expect(sdk.length).toBe(1);
    expect(viaSdk).toEqual(sdk);
    expect(viaNone).toEqual(sdk);
    expect(exchanges.get(sdkPath)).toBe(1);
    expect(exchanges.get(framed)).toBe(2);
    expect(exchanges.get(direct)).toBe(0);
    const body = sdk[0]?.body ?? '';
    // The paths are what they should be: JSON for a 2026-07-28 call without progress, else events.
    if (era === 'v2' && !progress) expect(body.startsWith('{"result"')).toBe(true);
    else expect(body).toMatch(/^event: message\ndata: /);
    if (progress) expect(body).toContain('notifications/progress');
  });
});
