/**
 * 1,000 concurrent submit_keyword_search calls waiting on a slow upstream (a results-lag fault: the
 * search reports finished, results arrive LAG later). Measured on the gateway while they wait: memory
 * per waiting call (RSS and heap deltas / calls), CPU share, and upstream polls per completed search
 * from the sandbox's request log (split over several credentials: each log keeps 1,000 entries; when
 * a log is full, from the gateway's count of upstream attempts instead).
 *
 * The heap is read after forced full collections (the gateway's heap probe, bench/lib/heap-probe.mjs),
 * before the calls and while all of them wait, both at a quiet moment outside the CPU window: what the
 * waiting calls keep reachable. /metrics' heap used (the fallback without a probe) also counts the
 * garbage the last collection left, which alone swings the figure by tens of kilobytes per call.
 */
import { request } from 'node:http';
import { REQUEST_LOG_LIMIT } from '../../src/sandbox/constants.js';
import { cpuMs, median, rssBytes } from '../lib/stats.js';
import { gatewayHeap, METRICS_TOKEN, type Sandbox, type SettledHeap } from '../servers.js';
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
  /** The heap was read after forced full collections (the probe), not from /metrics. */
  heapSettled: boolean;
  /** Milliseconds from the first submission until every call was waiting. */
  submittedMs: number;
  /** Gateway CPU from the first submission until all waited, per call (the polls meanwhile included). */
  submitCpuMsPerCall: number;
  /** The gauge when the heap was read while waiting (should be `calls`). */
  waitingAtHeapReading: number;
  cpuPercentWhileWaiting: number;
  /** Upstream polls per second in the CPU window (the gateway's count of search-host attempts). */
  pollsPerSecondWhileWaiting: number;
  /** Gateway CPU in that window per poll made in it (everything else the waiting calls cost included). */
  cpuUsPerPollWhileWaiting: number;
  pollsPerSearch: number;
  pollsCountedBy: 'sandbox' | 'gateway';
  pollBound: number;
}

const POLL_FIRST_MS = 500; // the gateway's production defaults (src/mcp/tools/types.ts)
const POLL_CAP_MS = 5_000;

/**
 * At most this many calls not yet answered with their response headers. Thousands of connects in a
 * burst overflow the gateway's listen queue (511, Node's default backlog) while its event loop is
 * busy: the kernel drops the SYNs and the client retries them after 1, 3, 7, 15… s, so calls opened
 * that way wait for a connection, not for their search, and the slowest never start within the lag
 * (`netstat -s`: "times the listen queue of a socket overflowed"). A loopback connect completes before
 * the server accepts it, so the slot is held until the headers: these 2025-era calls get their event
 * stream's headers as soon as the gateway takes them (waiting-direct.ts), or after 2 s at most. The
 * calls still all wait at the same time.
 */
const CONNECTING_MAX = 100;
const CONNECTING_HOLD_MS = 2_000;
let connecting = 0;
const connectQueue: Array<() => void> = [];

function connectSlot(): Promise<() => void> {
  const release = () => {
    connecting--;
    connectQueue.shift()?.();
  };
  return new Promise((resolve) => {
    const take = () => {
      connecting++;
      let released = false;
      resolve(() => {
        if (!released) {
          released = true;
          release();
        }
      });
    };
    if (connecting < CONNECTING_MAX) take();
    else connectQueue.push(take);
  });
}

async function post(url: string, token: string, body: string): Promise<{ status: number; text: string }> {
  const release = await connectSlot();
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
    const held = setTimeout(release, CONNECTING_HOLD_MS);
    req.on('response', () => {
      clearTimeout(held);
      release();
    });
    req.on('error', (error) => {
      clearTimeout(held);
      release();
      reject(error);
    });
    req.end(body);
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Each run's queries are its own: an identical submit within 10 minutes is answered with the earlier
 * search, which would leave a repeat's calls nothing to wait for.
 */
let runs = 0;

/** The gateway's own counts, from /metrics: calls waiting now, upstream attempts on the search host. */
async function gatewayCounts(url: string): Promise<{ waiting: number; searchAttempts: number }> {
  const text = await (
    await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
  ).text();
  let searchAttempts = 0;
  for (const m of text.matchAll(/^upstream_request_duration_seconds_count\{([^}]*)\} (\S+)$/gm)) {
    if (/host="search"/.test(m[1] ?? '')) searchAttempts += Number(m[2]);
  }
  const waiting = Number(/^mcp_waiting_calls (\S+)$/m.exec(text)?.[1] ?? Number.NaN);
  return { waiting, searchAttempts };
}

export async function waitingCalls(options: {
  /** settledHeap: the heap probe's reading (servers.ts); without it, /metrics' heap used. */
  gateway: { url: string; pid: number; settledHeap?: () => Promise<SettledHeap> };
  sandbox: Sandbox;
  grants: BenchGrant[];
  calls: number;
  /**
   * How long the calls are held: the results lag (a search reports finished, its results come this
   * much later). The gateway waits for missing results only resultsGraceMs (45 s) past the first poll
   * that saw the search finished, so a lag beyond that holds no call longer: for more calls than the
   * gateway takes in that time, `realistic` instead runs every search at the sandbox's realistic speed
   * (15 s pending, 150 s collecting) with no lag, and `lagMs` is then how long they run (≈ 165 s).
   */
  lagMs: number;
  slowBy?: 'results-lag' | 'realistic';
}): Promise<WaitingSample> {
  const { gateway, sandbox, grants, calls, lagMs } = options;
  const realistic = options.slowBy === 'realistic';
  const heapNow = gateway.settledHeap
    ? async () => (await (gateway.settledHeap as () => Promise<SettledHeap>)()).heapUsed
    : async () => (await gatewayHeap(gateway.url)).used;
  const control = (method: string, path: string, body?: unknown) =>
    fetch(`${sandbox.searchUrl}/__sandbox${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }).then((r) => r.json());
  for (const g of grants) {
    await control('PUT', '/faults', { token: g.upstreamToken, results_lag_ms: realistic ? 0 : lagMs });
    await control('PATCH', `/credentials/${g.upstreamToken}`, { speed: realistic ? 'realistic' : null });
    await control('DELETE', `/credentials/${g.upstreamToken}/requests`);
    await control('PATCH', `/credentials/${g.upstreamToken}`, { credits: 1_000 });
  }

  const heap0 = await heapNow();
  const rss0 = rssBytes(gateway.pid);
  const attempts0 = (await gatewayCounts(gateway.url)).searchAttempts;
  const cpu0 = cpuMs(gateway.pid);
  const started = Date.now();
  const durations: number[] = [];
  let failed = 0;
  /** Calls answered before every call was waiting: each is a call that did not wait (the first few kept). */
  let answeredEarly = 0;
  const early: string[] = [];
  let allWaiting = false;
  const run = runs++;
  const pending = Array.from({ length: calls }, async (_, i) => {
    const grant = grants[i % grants.length] as BenchGrant;
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: i,
      method: 'tools/call',
      params: {
        name: 'submit_keyword_search',
        arguments: { query: `bench wait ${run}-${i}`, platforms: ['twitter'] },
      },
    });
    // Submitted in batches (200 every 100 ms), so ten thousand connections do not overrun the
    // listen backlog at once; a reset connection counts as a call not completed.
    await sleep(Math.floor(i / 200) * 100);
    const res = await post(`${gateway.url}/mcp`, grant.accessToken, body).catch((error: unknown) => {
      failed++;
      if (early.length < 5) early.push(`call ${i}: ${String(error)}`);
      return null;
    });
    if (res && !allWaiting) {
      answeredEarly++;
      if (early.length < 5) early.push(`call ${i}: HTTP ${res.status} ${res.text.slice(0, 300)}`);
    }
    durations.push(Date.now() - started);
    return res?.status === 200 && /"completed":\s*true/.test(res.text);
  });

  // Everything submitted and waiting: then read memory and CPU over the quiet middle of the wait.
  for (;;) {
    const { waiting } = await gatewayCounts(gateway.url).catch((error: unknown) => {
      throw new Error(
        `reading /metrics failed (${String(error)}, ${(error as { cause?: unknown }).cause ?? ''}) after ${Date.now() - started} ms, ${failed} failed, ${answeredEarly} answered at once; ${early.join(' | ')}`,
      );
    });
    if (process.env.BENCH_WAIT_TRACE) {
      process.stderr.write(
        `[waiting] +${Date.now() - started} ms: ${waiting} waiting, ${failed} failed, ${answeredEarly} answered\n`,
      );
    }
    if (waiting >= calls) break;
    if (waiting + failed + answeredEarly >= calls || Date.now() - started > lagMs) {
      throw new Error(
        `the calls did not all start waiting: ${waiting} waiting, ${failed} failed, ${answeredEarly} answered at once after ${Date.now() - started} ms; ${early.join(' | ')}`,
      );
    }
    // Not faster: every scrape lists the process's handles and open files, which costs the gateway
    // more the more connections it holds.
    await sleep(500);
  }
  allWaiting = true;
  const submittedMs = Date.now() - started;
  const submitCpuMs = cpuMs(gateway.pid) - cpu0;
  await sleep(1_000);
  const attempts1 = (await gatewayCounts(gateway.url)).searchAttempts;
  const cpu1 = cpuMs(gateway.pid);
  const t1 = performance.now();
  // The window ends early enough for the settled heap reading below to fall before the first answers.
  const windowMs = Math.max(2_000, lagMs - (Date.now() - started) - 6_000);
  let rssPeak = rssBytes(gateway.pid);
  const windowEnd = performance.now() + windowMs;
  while (performance.now() < windowEnd) {
    await sleep(500);
    rssPeak = Math.max(rssPeak, rssBytes(gateway.pid));
  }
  const cpuWindowMs = cpuMs(gateway.pid) - cpu1;
  const elapsedMs = performance.now() - t1;
  const windowSeconds = elapsedMs / 1000;
  const cpuPercent = (cpuWindowMs / elapsedMs) * 100;
  // Upstream polls in the window (the gateway's count of attempts on the search host; the scrape that
  // reads it runs outside the CPU window): the CPU above per poll, and the rate the backoff needed.
  const windowPolls = (await gatewayCounts(gateway.url)).searchAttempts - attempts1;
  const heapWaiting = await heapNow();
  const stillWaiting = (await gatewayCounts(gateway.url)).waiting;

  const outcomes = await Promise.all(pending);
  const attempts = (await gatewayCounts(gateway.url)).searchAttempts - attempts0;
  let polls = 0;
  let creates = 0;
  let logFull = false;
  for (const g of grants) {
    const log = (await control('GET', `/credentials/${g.upstreamToken}/requests`)) as {
      requests: Array<{ method: string; path: string }>;
    };
    if (log.requests.length >= REQUEST_LOG_LIMIT) logFull = true;
    for (const r of log.requests) {
      if (r.method === 'GET' && /^\/api\/iq\/keyword_search\/\d+$/.test(r.path)) polls++;
      if (r.method === 'POST' && r.path === '/api/iq/keyword_search') creates++;
    }
    await control('DELETE', `/faults?token=${g.upstreamToken}`);
  }
  // A full log lost its oldest entries: every attempt on the search host but the creates is a poll
  // (a finished keyword search's answer needs no further read).
  if (logFull) {
    creates = calls - failed;
    polls = attempts - creates;
  }
  const completed = outcomes.filter(Boolean).length;
  const wait = median(durations);
  return {
    calls,
    completed,
    lagMs,
    submittedMs,
    submitCpuMsPerCall: submitCpuMs / calls,
    waitingAtHeapReading: stillWaiting,
    medianWaitMs: wait,
    rssPerCallKB: (rssPeak - rss0) / calls / 1024,
    rssPeakMB: rssPeak / 1024 / 1024,
    heapPerCallKB: (heapWaiting - heap0) / calls / 1024,
    heapSettled: gateway.settledHeap !== undefined,
    cpuPercentWhileWaiting: cpuPercent,
    pollsPerSecondWhileWaiting: windowPolls / windowSeconds,
    cpuUsPerPollWhileWaiting: windowPolls > 0 ? (cpuWindowMs * 1000) / windowPolls : Number.NaN,
    pollsPerSearch: creates ? polls / creates : Number.NaN,
    pollsCountedBy: logFull ? 'gateway' : 'sandbox',
    pollBound: 2 * Math.log2(wait / POLL_FIRST_MS) + wait / POLL_CAP_MS,
  };
}
