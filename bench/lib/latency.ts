/**
 * A closed-loop latency probe with microsecond resolution (autocannon's histogram counts whole
 * milliseconds, too coarse for a 1 ms budget): `connections` keep-alive sockets, each sending its next
 * request as soon as the previous answer has been read, for `seconds`.
 */
import { Agent, request } from 'node:http';

export interface LatencyResult {
  p50: number;
  p99: number;
  rps: number;
  requests: number;
}

export async function latency(options: {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  connections: number;
  seconds: number;
}): Promise<LatencyResult> {
  const url = new URL(options.url);
  const agent = new Agent({ keepAlive: true, maxSockets: options.connections });
  const body = options.body === undefined ? undefined : Buffer.from(options.body);
  const headers = { ...options.headers, ...(body ? { 'content-length': String(body.length) } : {}) };
  const samples: number[] = [];
  const end = performance.now() + options.seconds * 1000;
  const once = () =>
    new Promise<void>((resolve, reject) => {
      const started = performance.now();
      const req = request(url, { method: options.method ?? 'GET', headers, agent }, (res) => {
        res.on('data', () => {});
        res.on('end', () => {
          if ((res.statusCode ?? 0) >= 300) reject(new Error(`${options.url}: status ${res.statusCode}`));
          else {
            samples.push(performance.now() - started);
            resolve();
          }
        });
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });
  const worker = async () => {
    while (performance.now() < end) await once();
  };
  const startedAll = performance.now();
  try {
    await Promise.all(Array.from({ length: options.connections }, worker));
  } finally {
    agent.destroy();
  }
  const elapsed = (performance.now() - startedAll) / 1000;
  const sorted = samples.sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
  return { p50: at(0.5), p99: at(0.99), rps: samples.length / elapsed, requests: samples.length };
}
