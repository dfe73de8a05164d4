/**
 * Completion delay: how long after the upstream finishes a search the waiting call answers. Demo-speed
 * sandbox searches (one platform) finish a fixed SEARCH_MS after they are created and report a rising
 * percentage on the way, as the real service does; each call's delay is its duration minus that. The
 * comparison is fixed 5 s polling, which sees a finish 2.5 s late on average (half its interval).
 */
import { request } from 'node:http';
import { median } from '../lib/stats.js';
import type { Sandbox } from '../servers.js';
import type { BenchGrant } from '../setup.js';

/** Demo speed, one platform: 1 s pending + 3 s collecting (src/sandbox/speed.ts). */
const SEARCH_MS = 4_000;

function call(url: string, token: string, id: number): Promise<{ ms: number; completed: boolean }> {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: {
      name: 'submit_keyword_search',
      arguments: { query: `completion ${id}`, platforms: ['twitter'] },
    },
  });
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        agent: false,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${token}`,
          'content-length': Buffer.byteLength(body),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (d: string) => {
          text += d;
        });
        res.on('end', () =>
          resolve({ ms: performance.now() - started, completed: /"completed":\s*true/.test(text) }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

export async function completionDelay(options: {
  gatewayUrl: string;
  sandbox: Sandbox;
  grant: BenchGrant;
  calls: number;
}): Promise<{ p50Ms: number; p90Ms: number; completed: number; calls: number }> {
  const { gatewayUrl, sandbox, grant, calls } = options;
  await fetch(`${sandbox.searchUrl}/__sandbox/credentials/${grant.upstreamToken}`, {
    method: 'PATCH',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ speed: 'demo', credits: 10_000 }),
  });
  // Staggered starts, so the calls' polls do not all fall in the same instant.
  const results = await Promise.all(
    Array.from({ length: calls }, async (_, i) => {
      await new Promise((r) => setTimeout(r, i * 37));
      return call(`${gatewayUrl}/mcp`, grant.accessToken, i);
    }),
  );
  const delays = results.filter((r) => r.completed).map((r) => r.ms - SEARCH_MS);
  const sorted = [...delays].sort((a, b) => a - b);
  return {
    p50Ms: median(delays),
    p90Ms: sorted[Math.floor(sorted.length * 0.9)] ?? Number.NaN,
    completed: delays.length,
    calls,
  };
}
