import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connectV1, type Harness, type Json, startHarness, textOf } from '../../helpers/harness.js';

/**
 * A client's own request time-out is not a cancel. The v1 SDK client sends `notifications/cancelled`
 * for every request its time-out gives up on; the server only stops waiting then, and the agent run
 * goes on upstream, reachable by the next identical call. The wait limit here (20 s) is longer than the
 * client's time-out (15 s), as a client configured shorter than the server's 45 s would have it.
 */
let h: Harness;
beforeAll(async () => {
  h = await startHarness({ runMaxWaitMs: 20_000, searchMaxWaitMs: 20_000 });
});
afterAll(async () => {
  await h?.close();
});
afterEach(async () => {
  await h.control('POST', '/clock', { freeze: false });
});

const requests = async (token: string) =>
  (await h.control('GET', `/credentials/${token}/requests`)).requests as Json[];

/** Reads until `ok` holds or `ms` pass, then returns the last read (the test asserts on it). */
async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, ms = 3_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (ok(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('a client that times out', () => {
  it('v1 client, 15 s time-out on start_agent_run: the run is not cancelled, the next call reaches the report', async () => {
    const upstreamToken = await h.credential({ speed: 'demo' });
    const client = await connectV1(h.mcpUrl, await h.token({ upstreamToken }));
    try {
      // Sandbox time stands still: the run stays pending for as long as the client waits.
      await h.control('POST', '/clock', { freeze: true });
      const args = { question: 'Is the parade still on?' };
      await expect(
        client.callTool({ name: 'start_agent_run', arguments: args }, { timeout: 15_000 }),
      ).rejects.toThrow(/timed out/i);
      // Long enough for the client's notifications/cancelled to reach the sandbox as a cancel, had it.
      const seen = await until(
        () => requests(upstreamToken),
        (r) => r.some((x) => x.path.endsWith('/cancel')),
      );
      expect(seen.some((x) => x.path.endsWith('/cancel'))).toBe(false);
      const record = await h.control('GET', `/credentials/${upstreamToken}`);
      expect(record.runs).toHaveLength(1);
      expect(record.runs[0].status).not.toBe('failed');
      const runId = record.runs[0].id as string;

      // The run finishes upstream; the model's natural retry of the same call reaches its report.
      await h.control('POST', '/clock', { advance_ms: 60_000 });
      await h.control('POST', '/clock', { freeze: false });
      const again = await client.callTool({ name: 'start_agent_run', arguments: args });
      expect(again.isError).toBeFalsy();
      expect(textOf(again)).toContain(`Same arguments as agent run ${runId}`);
      expect(again.structuredContent.status).toBe('completed');
      expect(again.structuredContent.completed).toBe(true);
      const after = await h.control('GET', `/credentials/${upstreamToken}`);
      expect(after.runs).toHaveLength(1);
      expect(after.runs[0].status).toBe('completed');
    } finally {
      await client.close();
    }
  }, 40_000);
});
