import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REVIEWED_SDK_VERSION } from '../../../src/mcp/sdk-bypass/reviewed-sdk.js';
import { ROOT } from '../../helpers/process.js';
import { polls, rawPost, recordedBy, SEARCH, type Stack, stack, step, until } from './wire-stacks.js';

/**
 * What src/mcp/sdk-bypass/README.md promises beyond the byte-for-byte wire tests: the SDK it was
 * checked against is the one installed, and its keep-alive comments are the SDK's own bytes.
 */
describe('the SDK bypass', () => {
  it('was reviewed against the installed SDK version (read its README before moving the constant)', () => {
    const installed = JSON.parse(
      readFileSync(join(ROOT, 'node_modules', '@modelcontextprotocol', 'server', 'package.json'), 'utf8'),
    ) as { version: string };
    expect(installed.version).toBe(REVIEWED_SDK_VERSION);
  });

  describe('keep-alive comments', () => {
    const KEEP_ALIVE_MS = 200;
    const stacks: Stack[] = [];
    beforeAll(async () => {
      for (const sdkBypass of ['off', 'framed', 'full'] as const)
        stacks.push(await stack({ sdkBypass, sseKeepAliveMs: KEEP_ALIVE_MS }));
    });
    afterAll(async () => {
      for (const s of stacks) await s.h.close();
    });

    /** The comment frames of one waiting call's event stream, held open well past the interval. */
    const commentsOf = async (s: Stack, era: 'legacy' | 'modern') => {
      const [recorded] = await recordedBy(s, async () => {
        const before = await polls(s);
        // A progress token: a 2026-07-28 answer becomes an event stream at its first notification.
        const answered = rawPost(s, era, { id: 7, method: 'tools/call', params: SEARCH }, 3);
        await until(async () => (await polls(s)) >= before + 2, 'the call to wait');
        await sleep(5 * KEEP_ALIVE_MS);
        await step(s, 2_000);
        await s.h.control('POST', '/clock', { advance_ms: 3_000 });
        await answered;
      });
      return (recorded?.body ?? '').split('\n\n').filter((frame) => frame.startsWith(':'));
    };

    it.each(['legacy', 'modern'] as const)('are the SDK’s bytes on every path (%s era)', async (era) => {
      const [sdk, framed, direct] = [
        await commentsOf(stacks[0] as Stack, era),
        await commentsOf(stacks[1] as Stack, era),
        await commentsOf(stacks[2] as Stack, era),
      ];
      expect(sdk.length).toBeGreaterThan(0);
      expect(framed.length).toBeGreaterThan(0);
      expect(direct.length).toBeGreaterThan(0);
      expect(new Set(framed)).toEqual(new Set(sdk));
      expect(new Set(direct)).toEqual(new Set(sdk));
    });
  });
});
