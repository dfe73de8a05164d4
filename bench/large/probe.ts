/**
 * The large-database bench's clients: time to first byte of a page, tools/list with bearers the
 * gateway has not cached (each request presents the next token of a pool larger than what the bearer
 * cache can hold for its lifetime), and a steady mix of requests whose every latency is kept with its
 * start time (beside the purge).
 */
import { Agent, request } from 'node:http';

export interface Timed {
  start: number;
  ms: number;
  status: number;
}

/** One request: when its first body byte arrived and when it ended (ms since it was sent). */
export function timedRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string; agent?: Agent },
): Promise<{ status: number; firstByteMs: number; totalMs: number; body: string }> {
  const body = options.body === undefined ? undefined : Buffer.from(options.body);
  const headers = { ...options.headers, ...(body ? { 'content-length': String(body.length) } : {}) };
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let firstByteMs = Number.NaN;
    const chunks: Buffer[] = [];
    const req = request(url, { method: options.method ?? 'GET', headers, agent: options.agent }, (res) => {
      res.on('data', (chunk: Buffer) => {
        if (Number.isNaN(firstByteMs)) firstByteMs = performance.now() - started;
        chunks.push(chunk);
      });
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          firstByteMs,
          totalMs: performance.now() - started,
          body: Buffer.concat(chunks).toString('utf8'),
        }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** `times` requests one after another after one warm-up: first-byte times, sorted. */
export async function firstBytes(
  url: string,
  headers: Record<string, string>,
  times: number,
): Promise<number[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const samples: number[] = [];
    for (let i = 0; i <= times; i++) {
      const r = await timedRequest(url, { headers, agent });
      if (r.status !== 200) throw new Error(`${url}: status ${r.status}: ${r.body.slice(0, 300)}`);
      if (i > 0) samples.push(r.firstByteMs);
    }
    return samples.sort((a, b) => a - b);
  } finally {
    agent.destroy();
  }
}

export const TOOLS_LIST_BODY = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });

export function mcpHeaders(token: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2025-06-18',
    authorization: `Bearer ${token}`,
  };
}

/** A closed loop of `connections` for `seconds`, each request built by `next`; every answer must be 200. */
export async function closedLoop(
  url: string,
  connections: number,
  seconds: number,
  next: () => { method?: string; headers: Record<string, string>; body?: string },
): Promise<Timed[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const samples: Timed[] = [];
  const end = performance.now() + seconds * 1000;
  const worker = async () => {
    while (performance.now() < end) {
      const start = performance.now();
      const r = await timedRequest(url, { ...next(), agent });
      if (r.status !== 200) throw new Error(`${url}: status ${r.status}: ${r.body.slice(0, 300)}`);
      samples.push({ start, ms: r.totalMs, status: r.status });
    }
  };
  try {
    await Promise.all(Array.from({ length: connections }, worker));
  } finally {
    agent.destroy();
  }
  return samples;
}

export function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}
