/**
 * `npm run bench`: builds nothing itself (the npm script builds first), starts the sandbox, writes the
 * bench data, measures cold starts, then runs the built gateway in production mode and measures it
 * with autocannon from this process, in interleaved rounds so a noisy neighbour hits every figure
 * alike. Every comparison is a ratio or difference within one round; every figure a median of rounds.
 * Prints a table and writes bench/results/latest.json. Every process it starts is killed at the end,
 * on failure and on Ctrl-C (lib/proc.ts).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CapturedRequest, captureRequests } from './capture.js';
import { contextRows, measureContextCost, readBefore } from './figures/context.js';
import { type ProxySample, proxyRound } from './figures/proxy.js';
import { coldStarts } from './figures/startup.js';
import { type ThroughputSample, TOOLS_LIST_CONNECTIONS, toolsListRound } from './figures/throughput.js';
import { TOKEN_CONNECTIONS, tokenRound } from './figures/token.js';
import { type WaitingSample, waitingCalls } from './figures/waiting.js';
import { MB, median, round, rssBytes } from './lib/stats.js';
import { machine, type Row, table, write } from './report.js';
import { type Gateway, type Sandbox, startBaseline, startGateway, startSandbox } from './servers.js';
import { setupDatabase } from './setup.js';

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const settings = {
  secondsPerRun: env('BENCH_SECONDS', 5),
  rounds: env('BENCH_ROUNDS', 3),
  waitingCalls: env('BENCH_WAIT_CALLS', 1_000),
  waitingLagMs: env('BENCH_LAG_MS', 20_000),
  waitingRepeats: env('BENCH_WAIT_REPEATS', 2),
  coldStarts: env('BENCH_COLD_STARTS', 5),
  waitingCredentials: 20,
  idleSettleMs: env('BENCH_IDLE_MS', 30_000),
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);

async function credential(sandbox: Sandbox, body: Record<string, unknown>): Promise<string> {
  const res = await fetch(`${sandbox.searchUrl}/__sandbox/credentials`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return ((await res.json()) as { token: string }).token;
}

/** One finished keyword search to read back in the proxy figure, made through the gateway. */
async function makeSearch(gateway: Gateway, accessToken: string): Promise<number> {
  const res = await fetch(`${gateway.url}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${accessToken}`,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'submit_keyword_search', arguments: { query: 'heat pumps', platforms: ['twitter'] } },
    }),
  });
  const id = /"search_id":\s*(\d+)/.exec(await res.text())?.[1];
  if (!id) throw new Error('could not create the bench search');
  return Number(id);
}

/** The gateway's tools/list answer as bytes in a file, for the baseline's ceiling route. */
async function toolsListAnswer(mcpUrl: string, request: CapturedRequest, dir: string) {
  const res = await fetch(mcpUrl, { method: 'POST', headers: request.headers, body: request.body });
  const bodyFile = join(dir, 'tools-list-answer');
  writeFileSync(bodyFile, Buffer.from(await res.arrayBuffer()));
  return { bodyFile, contentType: res.headers.get('content-type') ?? 'application/json' };
}

async function main() {
  const work = mkdtempSync(join(tmpdir(), 'sim-bench-'));
  const databasePath = join(work, 'bench.db');
  const rssTrail: number[] = [];
  const rssSoonAfter: number[] = [];
  const rssSettled: number[] = [];
  try {
    log(`settings ${JSON.stringify(settings)}; scratch ${work}`);
    const sandbox = await startSandbox();
    const main = await credential(sandbox, { credits: 1_000_000, producer: true });
    const waiting = [];
    for (let i = 0; i < settings.waitingCredentials; i++)
      waiting.push(await credential(sandbox, { credits: 1_000 }));
    const poolSize = TOKEN_CONNECTIONS * (settings.rounds + 1) + 16;
    const data = await setupDatabase(databasePath, [main, ...waiting], poolSize);
    const mainGrant = data.grants[0];
    if (!mainGrant) throw new Error('no bench grant');

    log('cold starts');
    const cold = await coldStarts(settings.coldStarts, { databasePath, sandbox, logDir: work });

    const gateway = await startGateway({ databasePath, sandbox, logDir: work });
    await sleep(1_000);
    const rssAfterStart = rssBytes(gateway.proc.pid);
    const mcpUrl = `${gateway.url}/mcp`;
    const searchId = await makeSearch(gateway, mainGrant.accessToken);
    const requests = await captureRequests(mcpUrl, mainGrant.accessToken, searchId);
    log('context cost');
    const context = await measureContextCost(mcpUrl, mainGrant.accessToken);
    const baseline = await startBaseline(await toolsListAnswer(mcpUrl, requests.legacy, work));
    log(`captured tools/list: modern ${JSON.stringify(requests.modern.headers)}`);
    log(`captured tools/list: legacy ${JSON.stringify(requests.legacy.headers)}`);
    const target = { searchUrl: sandbox.searchUrl, upstreamToken: main, searchId };

    const throughput: ThroughputSample[] = [];
    const proxy1: ProxySample[] = [];
    const proxy32: ProxySample[] = [];
    const token: Array<{ rps: number; p50: number; p99: number }> = [];
    // Round 0 warms the JIT and the caches and is not counted.
    for (let r = 0; r <= settings.rounds; r++) {
      const seconds = r === 0 ? 1 : settings.secondsPerRun;
      log(`round ${r}${r === 0 ? ' (warm-up)' : ''}`);
      const t = await toolsListRound(baseline.url, mcpUrl, requests, seconds);
      const p1 = await proxyRound(target, mcpUrl, requests.toolsCall, 1, seconds);
      const p32 = await proxyRound(target, mcpUrl, requests.toolsCall, 32, seconds);
      const k = await tokenRound(gateway.url, data.clientId, data.refreshPool, seconds);
      if (r === 0) continue;
      throughput.push(t);
      proxy1.push(p1);
      proxy32.push(p32);
      token.push(k);
      await sleep(2_000);
      rssTrail.push(rssBytes(gateway.proc.pid));
    }

    const waits: WaitingSample[] = [];
    for (let i = 0; i < settings.waitingRepeats; i++) {
      log(
        `waiting calls ${i + 1}/${settings.waitingRepeats}: ${settings.waitingCalls} calls, lag ${settings.waitingLagMs} ms`,
      );
      waits.push(
        await waitingCalls({
          gateway: { url: gateway.url, pid: gateway.proc.pid },
          sandbox,
          grants: data.grants.slice(1),
          calls: settings.waitingCalls,
          lagMs: settings.waitingLagMs,
        }),
      );
      // Idle: V8 gives back the heap it grew to only once allocation has been quiet for a while (its
      // memory reducer, ~15–20 s here). Read right after the load, RSS is that peak, not a leak.
      await sleep(3_000);
      rssSoonAfter.push(rssBytes(gateway.proc.pid));
      await sleep(settings.idleSettleMs - 3_000);
      rssSettled.push(rssBytes(gateway.proc.pid));
      rssTrail.push(rssSettled.at(-1) ?? 0);
    }
    const rssAfterLoad = rssSettled.at(-1) ?? 0;

    await baseline.proc.stop();
    await gateway.proc.stop();
    await sandbox.proc.stop();

    // ---- figures ------------------------------------------------------------------------------
    const m = (xs: number[]) => median(xs);
    const baselineRps = m(throughput.map((s) => s.baseline));
    const ceilingRatio = m(throughput.map((s) => s.ceiling / s.baseline));
    const legacyOfCeiling = m(throughput.map((s) => s.legacy / s.ceiling));
    const modernRatio = m(throughput.map((s) => s.modern / s.baseline));
    const legacyRatio = m(throughput.map((s) => s.legacy / s.baseline));
    const overhead = (samples: ProxySample[], q: 'p50' | 'p99') =>
      m(samples.map((s) => s.viaMcp[q] - s.direct[q]));
    const o = {
      p50c1: overhead(proxy1, 'p50'),
      p99c1: overhead(proxy1, 'p99'),
      p50c32: overhead(proxy32, 'p50'),
      p99c32: overhead(proxy32, 'p99'),
    };
    const tokenRps = m(token.map((t) => t.rps));
    const w = {
      rss: m(waits.map((x) => x.rssPerCallKB)),
      heap: m(waits.map((x) => x.heapPerCallKB)),
      cpu: m(waits.map((x) => x.cpuPercentWhileWaiting)),
      polls: m(waits.map((x) => x.pollsPerSearch)),
      bound: m(waits.map((x) => x.pollBound)),
      completed: waits.map((x) => `${x.completed}/${x.calls}`).join(', '),
    };
    const coldMs = m(cold.startMs);
    const idleStart = m([...cold.idleRssBytes, rssAfterStart]) / MB;
    // Growth across repeats of the same load, each read after the same idle time.
    const growth = ((rssSettled.at(-1) ?? 0) - (rssSettled[0] ?? 0)) / MB;
    const ms = (x: number) => `${round(x, 2)} ms`;

    const rows: Row[] = [
      {
        figure: 'baseline: bare Hono route',
        value: `${Math.round(baselineRps)} req/s`,
        target: '(reference)',
        met: null,
      },
      {
        figure: 'ceiling: tools/list answer from a bare route ÷ baseline',
        value: `${Math.round(m(throughput.map((s) => s.ceiling)))} req/s = ${round(ceilingRatio)}`,
        target: '(reference)',
        met: null,
      },
      {
        figure: 'tools/list 2025-06-18 ÷ ceiling',
        value: round(legacyOfCeiling).toString(),
        target: '(reference)',
        met: null,
      },
      {
        figure: 'tools/list 2026-07-28 ÷ baseline',
        value: `${Math.round(m(throughput.map((s) => s.modern)))} req/s = ${round(modernRatio)}`,
        target: '≥ 0.3',
        met: modernRatio >= 0.3,
      },
      {
        figure: 'tools/list 2025-06-18 ÷ baseline',
        value: `${Math.round(m(throughput.map((s) => s.legacy)))} req/s = ${round(legacyRatio)}`,
        target: '≥ 0.3',
        met: legacyRatio >= 0.3,
      },
      { figure: 'proxy overhead p50, 1 connection', value: ms(o.p50c1), target: '≤ 1 ms', met: o.p50c1 <= 1 },
      { figure: 'proxy overhead p99, 1 connection', value: ms(o.p99c1), target: '≤ 3 ms', met: o.p99c1 <= 3 },
      { figure: 'proxy overhead p50, 32 connections', value: ms(o.p50c32), target: '(reference)', met: null },
      { figure: 'proxy overhead p99, 32 connections', value: ms(o.p99c32), target: '(reference)', met: null },
      {
        figure: 'token endpoint: refresh grants',
        value: `${Math.round(tokenRps)} /s`,
        target: '≥ 1,000 /s',
        met: tokenRps >= 1_000,
      },
      {
        figure: `waiting calls (${settings.waitingCalls}): RSS per call`,
        value: `${round(w.rss, 1)} KB`,
        target: '≤ 20 KB',
        met: w.rss <= 20,
      },
      {
        figure: `waiting calls (${settings.waitingCalls}): heap per call`,
        value: `${round(w.heap, 1)} KB`,
        target: '≤ 20 KB',
        met: w.heap <= 20,
      },
      {
        figure: 'waiting calls: gateway CPU',
        value: `${round(w.cpu, 1)} % of a core`,
        target: '< 5 %',
        met: w.cpu < 5,
      },
      {
        figure: 'waiting calls: upstream polls per search',
        value: `${round(w.polls, 1)} (completed ${w.completed})`,
        target: `≤ ${round(w.bound, 1)}`,
        met: w.polls <= w.bound,
      },
      {
        figure: 'cold start to first /healthz 200',
        value: ms(coldMs),
        target: '≤ 1,000 ms',
        met: coldMs <= 1_000,
      },
      {
        figure: 'idle RSS after start',
        value: `${round(idleStart, 1)} MB`,
        target: '≤ 120 MB',
        met: idleStart <= 120,
      },
      {
        figure: 'RSS 3 s after the waiting calls (V8 still holds its peak)',
        value: `${round((rssSoonAfter.at(-1) ?? 0) / MB, 1)} MB`,
        target: '(reference)',
        met: null,
      },
      {
        figure: `idle RSS ${settings.idleSettleMs / 1000} s after the load`,
        value: `${round(rssAfterLoad / MB, 1)} MB`,
        target: '≤ 120 MB',
        met: rssAfterLoad / MB <= 120,
      },
      {
        figure: `RSS growth across waiting repeats (each ${settings.idleSettleMs / 1000} s after)`,
        value: `${round(growth, 1)} MB (${rssSettled.map((x) => round(x / MB, 0)).join(' → ')})`,
        target: '≤ 10 MB',
        met: growth <= 10,
      },
      ...contextRows(context, readBefore()),
    ];
    const report = {
      machine: machine(),
      date: new Date().toISOString(),
      settings: {
        ...settings,
        toolsListConnections: TOOLS_LIST_CONNECTIONS,
        tokenConnections: TOKEN_CONNECTIONS,
      },
      rows,
      raw: {
        context,
        throughput,
        proxy1,
        proxy32,
        token,
        waits,
        cold,
        rssAfterStart,
        rssAfterLoad,
        rssTrail,
        rssSoonAfter,
        rssSettled,
      },
    };
    const file = write(report);
    const mc = report.machine;
    process.stdout.write(
      `\n${table(rows)}\n\n${mc.nproc} × ${mc.cpu}, Node ${mc.node}\nwritten to ${file}\n`,
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(
      `[bench] failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  },
);
