/** Cold start (spawn to the first /healthz 200) and the idle memory of a freshly started gateway. */
import { rssBytes } from '../lib/stats.js';
import { type Sandbox, startGateway } from '../servers.js';

export async function coldStarts(
  times: number,
  options: { databasePath: string; sandbox: Sandbox; logDir: string },
): Promise<{ startMs: number[]; idleRssBytes: number[] }> {
  const startMs: number[] = [];
  const idleRssBytes: number[] = [];
  for (let i = 0; i < times; i++) {
    const gateway = await startGateway(options);
    try {
      startMs.push(gateway.startMs);
      await new Promise((r) => setTimeout(r, 1_000));
      idleRssBytes.push(rssBytes(gateway.proc.pid));
    } finally {
      await gateway.proc.stop();
    }
  }
  return { startMs, idleRssBytes };
}
