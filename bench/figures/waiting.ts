/**
 * 1,000 concurrent submit_keyword_search calls waiting on a slow upstream (a results-lag fault: the
 * search reports finished, results arrive LAG later). Measured on the gateway while they wait: memory
 * per waiting call (RSS and heap deltas / calls), CPU share, and upstream polls per completed search
 * from the sandbox's request log (split over several credentials: each log keeps 1,000 entries).
 */
import { request } from 'node:http';
import { cpuMs, median, rssBytes } from '../lib/stats.js';
import { gatewayHeap, gatewayWaiting, type Sandbox } from '../servers.js';
import type { BenchGrant } from '../setup.js';

export interface WaitingSample {
  calls: number;
  completed: number;
  lagMs: number;
  medianWaitMs: number;
  rssPerCallKB: number;
  /** The gateway's RSS at its highest while the calls waited, MB. */
  rssPeakMB: number;
  heapPerCallKB: number;
  cpuPercentWhileWaiting: number;
  pollsPerSearch: number;
  pollBound: number;
}

const POLL_FIRST_MS = 500; // the gateway's production defaults (src/mcp/tools/types.ts)
const POLL_CAP_MS = 5_000;

function post(url: string, token: string, body: string): Promise<{ status: number; text: string }> {
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
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function waitingCalls(options: {
  gateway: { url: string; pid: number };
  sandbox: Sandbox;
  grants: BenchGrant[];
  calls: number;
  lagMs: number;
}): Promise<WaitingSample> {
  const { gateway, sandbox, grants, calls, lagMs } = options;
  const control = (method: string, path: string, body?: unknown) =>
    fetch(`${sandbox.searchUrl}/__sandbox${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }).then((r) => r.json());
  for (const g of grants) {
    await control('PUT', '/faults', { token: g.upstreamToken, results_lag_ms: lagMs });
    await control('DELETE', `/credentials/${g.upstreamToken}/requests`);
    await control('PATCH', `/credentials/${g.upstreamToken}`, { credits: 1_000 });
  }

  const rss0 = rssBytes(gateway.pid);
  const heap0 = (await gatewayHeap(gateway.url)).used;
  const started = Date.now();
  const durations: number[] = [];
  let failed = 0;
  const pending = Array.from({ length: calls }, async (_, i) => {
    const grant = grants[i % grants.length] as BenchGrant;
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: i,
      method: 'tools/call',
      params: {
        name: 'submit_keyword_search',
        arguments: { query: `bench wait ${i}`, platforms: ['twitter'] },
      },
    });
    // Submitted in batches (200 every 100 ms), so ten thousand connections do not overrun the
    // listen backlog at once; a reset connection counts as a call not completed.
    await sleep(Math.floor(i / 200) * 100);
    const res = await post(`${gateway.url}/mcp`, grant.accessToken, body).catch(() => {
      failed++;
      return null;
    });
    durations.push(Date.now() - started);
    return res?.status === 200 && /"completed":\s*true/.test(res.text);
  });

  // Everything submitted and waiting: then read memory and CPU over the quiet middle of the wait.
  while ((await gatewayWaiting(gateway.url)) + failed < calls) {
    if (Date.now() - started > lagMs) throw new Error('the calls did not all start waiting');
    await sleep(100);
  }
  await sleep(1_000);
  const cpu1 = cpuMs(gateway.pid);
  const t1 = performance.now();
  const windowMs = Math.max(2_000, lagMs - (Date.now() - started) - 3_000);
  let rssPeak = rssBytes(gateway.pid);
  let heapPeak = (await gatewayHeap(gateway.url)).used;
  const windowEnd = performance.now() + windowMs;
  while (performance.now() < windowEnd) {
    await sleep(500);
    rssPeak = Math.max(rssPeak, rssBytes(gateway.pid));
  }
  heapPeak = Math.max(heapPeak, (await gatewayHeap(gateway.url)).used);
  const cpuPercent = ((cpuMs(gateway.pid) - cpu1) / (performance.now() - t1)) * 100;

  const outcomes = await Promise.all(pending);
  let polls = 0;
  let creates = 0;
  for (const g of grants) {
    const log = (await control('GET', `/credentials/${g.upstreamToken}/requests`)) as {
      requests: Array<{ method: string; path: string }>;
    };
    for (const r of log.requests) {
      if (r.method === 'GET' && /^\/api\/iq\/keyword_search\/\d+$/.test(r.path)) polls++;
      if (r.method === 'POST' && r.path === '/api/iq/keyword_search') creates++;
    }
    await control('DELETE', `/faults?token=${g.upstreamToken}`);
  }
  const completed = outcomes.filter(Boolean).length;
  const wait = median(durations);
  return {
    calls,
    completed,
    lagMs,
    medianWaitMs: wait,
    rssPerCallKB: (rssPeak - rss0) / calls / 1024,
    rssPeakMB: rssPeak / 1024 / 1024,
    heapPerCallKB: (heapPeak - heap0) / calls / 1024,
    cpuPercentWhileWaiting: cpuPercent,
    pollsPerSearch: creates ? polls / creates : Number.NaN,
    pollBound: 2 * Math.log2(wait / POLL_FIRST_MS) + wait / POLL_CAP_MS,
  };
}
