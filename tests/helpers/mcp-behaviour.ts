import { afterAll, afterEach, beforeAll } from 'vitest';
import { connectV2, type Harness, type Json, startHarness } from './harness.js';

/**
 * The set-up of the MCP behaviour tests against the sandbox (tests/mcp/: cancel-progress, wait-limits,
 * upstream-faults, tool-scopes and result-size-audit): short limits so every path is reached quickly,
 * one retry, 1.5 s waits. The upstream timeout (2 s) leaves an ordinary call seconds of room on a
 * loaded machine (at 400 ms, calls timed out under load); a latency fault that must time out is well
 * past it. Registers the file's hooks (faults cleared and the sandbox clock thawed after each test);
 * read `h` inside tests.
 */
export function mcpBehaviourFixture() {
  let harness: Harness | undefined;
  beforeAll(async () => {
    harness = await startHarness({
      upstreamTimeoutMs: 2_000,
      upstreamMaxRetries: 1,
      searchMaxWaitMs: 1_500,
      runMaxWaitMs: 1_500,
      resultsGraceMs: 400,
      maxResultTokens: 5_000,
    });
    // One submit first, on a credential of its own: a cold server's first create (module loading,
    // the first database writes, the upstream connection) can outlast a 1.5 s limit on a loaded
    // machine, and the limit counts the create (it would answer "still being created").
    const warm = await harness.credential({ speed: 'instant' });
    const client = await connectV2(harness.mcpUrl, await harness.token({ upstreamToken: warm }));
    await client.callTool({ name: 'submit_expert_search', arguments: { query: 'warm-up' } });
    await client.close();
  });
  afterAll(async () => {
    await harness?.close();
  });
  afterEach(async () => {
    await fx.h.control('DELETE', '/faults');
    await fx.h.control('POST', '/clock', { freeze: false });
  });

  const fx = {
    get h(): Harness {
      if (!harness) throw new Error('mcpBehaviourFixture: h is read before beforeAll ran');
      return harness;
    },

    /** A fresh upstream credential and a client connected with a token for it. */
    async session(
      connect: typeof connectV2 = connectV2,
      cred: { credits?: number; producer?: boolean } = { producer: true },
      scopes?: Json,
    ) {
      const upstreamToken = await fx.h.credential(cred);
      const client = await connect(
        fx.h.mcpUrl,
        await fx.h.token({ upstreamToken, ...(scopes ? { scopes } : {}) }),
      );
      return { upstreamToken, client };
    },

    /** The sandbox's record of a credential. */
    record: (token: string) => fx.h.control('GET', `/credentials/${token}`),

    /** The requests the sandbox received with a credential. */
    requests: async (token: string) =>
      (await fx.h.control('GET', `/credentials/${token}/requests`)).requests as Json[],

    /** Reads until `ok` holds or `ms` pass, then returns the last read (the test asserts on it). */
    async until<T>(read: () => Promise<T>, ok: (v: T) => boolean, ms = 3_000): Promise<T> {
      const end = Date.now() + ms;
      for (;;) {
        const v = await read();
        if (ok(v) || Date.now() > end) return v;
        await new Promise((r) => setTimeout(r, 50));
      }
    },
  };
  return fx;
}
