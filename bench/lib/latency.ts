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

export interface LatencyTarget {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
}

/** One target's keep-alive agent and request; `once()` resolves with the milliseconds to its last byte. */
function sender(target: LatencyTarget, connections: number) {
  const url = new URL(target.url);
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const body = target.body === undefined ? undefined : Buffer.from(target.body);
  const headers = { ...target.headers, ...(body ? { 'content-length': String(body.length) } : {}) };
  const once = () =>
    new Promise<number>((resolve, reject) => {
      const started = performance.now();
      const req = request(url, { method: target.method ?? 'GET', headers, agent }, (res) => {
        res.on('data', () => {});
        res.on('end', () => {
          if ((res.statusCode ?? 0) >= 300) reject(new Error(`${target.url}: status ${res.statusCode}`));
          else resolve(performance.now() - started);
        });
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });
  return { once, close: () => agent.destroy() };
}

function summary(samples: number[], seconds: number): LatencyResult {
  const sorted = samples.sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
  return { p50: at(0.5), p99: at(0.99), rps: samples.length / seconds, requests: samples.length };
}

export async function latency(
  options: LatencyTarget & { connections: number; seconds: number },
): Promise<LatencyResult> {
  const target = sender(options, options.connections);
  const samples: number[] = [];
  const end = performance.now() + options.seconds * 1000;
  const worker = async () => {
    while (performance.now() < end) samples.push(await target.once());
  };
  const startedAll = performance.now();
  try {
    await Promise.all(Array.from({ length: options.connections }, worker));
  } finally {
    target.close();
  }
  return summary(samples, (performance.now() - startedAll) / 1000);
}

/**
 * Two targets measured turn about on one connection each: a request to `a`, then one to `b`, and so on
 * for `seconds`. Each pair is taken within a few milliseconds, so a difference of their percentiles is
 * the targets' own, not a change in the machine's speed between two separate runs (on a shared
 * machine the same route's p50 can move by half within a minute). Each result's rate is that target's
 * requests over the whole run.
 */
export async function pairedLatency(options: {
  a: LatencyTarget;
  b: LatencyTarget;
  seconds: number;
}): Promise<{ a: LatencyResult; b: LatencyResult }> {
  const a = sender(options.a, 1);
  const b = sender(options.b, 1);
  const samplesA: number[] = [];
  const samplesB: number[] = [];
  const startedAll = performance.now();
  const end = startedAll + options.seconds * 1000;
  try {
    while (performance.now() < end) {
      samplesA.push(await a.once());
      samplesB.push(await b.once());
    }
  } finally {
    a.close();
    b.close();
  }
  const seconds = (performance.now() - startedAll) / 1000;
  return { a: summary(samplesA, seconds), b: summary(samplesB, seconds) };
}
