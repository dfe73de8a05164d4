/**
 * `npm run soak` (not in CI): the built gateway in production mode against the sandbox process, under a
 * fixed-rate mix of sign-ins, tool calls and refresh-token rotations for SOAK_SECONDS (default 600). Passes
 * with zero errors, flat memory (RSS and heap after the first minute grow by less than SOAK_MAX_GROWTH_MB,
 * and RSS at the end is within SOAK_MAX_GROWTH_PCT of the first minute's; a window's RSS is the median of its
 * once-a-second samples) and a bounded p99 (no 30-second window's p99 of sign-ins, tool reads and refreshes
 * above SOAK_MAX_P99_MS; submits wait for their search by design). Prints the figures; exits 1 when a claim
 * fails. Every process it starts is killed at the end (bench/lib/proc.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cpuMs, MB, median, round, rssBytes } from '../../bench/lib/stats.js';
import { gatewayHeap, PUBLIC_URL, startGateway, startSandbox } from '../../bench/servers.js';
import { setupDatabase } from '../../bench/setup.js';

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const SECONDS = env('SOAK_SECONDS', 600);
const RATE = env('SOAK_RATE', 120); // operations per second, open loop (the soak's target: 120/s for 10 minutes)
const MAX_GROWTH_MB = env('SOAK_MAX_GROWTH_MB', 15);
const MAX_GROWTH_PCT = env('SOAK_MAX_GROWTH_PCT', 10);
const MAX_P99_MS = env('SOAK_MAX_P99_MS', 500);
const WINDOW_MS = 30_000;
const CHAINS = 8;

type Op = 'sign_in' | 'tool_call' | 'submit' | 'refresh';
const MIX: Array<[Op, number]> = [
  ['tool_call', 0.55],
  ['refresh', 0.3],
  ['submit', 0.1],
  ['sign_in', 0.05],
];

const log = (m: string) => process.stderr.write(`[soak] ${m}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main(): Promise<number> {
  const work = mkdtempSync(join(tmpdir(), 'sim-soak-'));
  try {
    const databasePath = join(work, 'soak.db');
    const sandbox = await startSandbox();
    const upstream = (
      (await (
        await fetch(`${sandbox.searchUrl}/__sandbox/credentials`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ credits: 10_000_000 }),
        })
      ).json()) as { token: string }
    ).token;
    const data = await setupDatabase(databasePath, [upstream], CHAINS);
    const grant = data.grants[0];
    if (!grant) throw new Error('no soak grant');
    const gateway = await startGateway({ databasePath, sandbox, logDir: work });
    const pid = gateway.proc.pid;
    const origin = new URL(PUBLIC_URL).origin;

    const mcp = (body: unknown) =>
      fetch(`${gateway.url}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${grant.accessToken}`,
        },
        body: JSON.stringify(body),
      });
    const call = (name: string, args: Record<string, unknown>) =>
      mcp({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } });
    const first = await (
      await call('submit_keyword_search', { query: 'soak', platforms: ['twitter'] })
    ).text();
    const searchId = Number(/"search_id":\s*(\d+)/.exec(first)?.[1]);
    if (!searchId) throw new Error(`no search: ${first.slice(0, 200)}`);

    const chains = data.refreshPool.map((refresh) => ({ refresh, busy: false }));
    const ops: Record<Op, () => Promise<boolean>> = {
      tool_call: async () => {
        const res =
          Math.random() < 0.5
            ? await call('get_keyword_search', { search_id: searchId })
            : await call('usage', {});
        const text = await res.text();
        return res.status === 200 && !text.includes('"isError":true');
      },
      submit: async () => {
        const res = await call('submit_keyword_search', {
          query: `soak ${Math.random()}`,
          platforms: ['twitter'],
        });
        const text = await res.text();
        return res.status === 200 && /"completed":\s*true/.test(text);
      },
      refresh: async () => {
        const chain = chains.find((c) => !c.busy);
        if (!chain) return true; // every chain is mid-rotation: a real client would wait too
        chain.busy = true;
        try {
          const res = await fetch(`${gateway.url}/token`, {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: new URLSearchParams({
              grant_type: 'refresh_token',
              refresh_token: chain.refresh,
              client_id: data.clientId,
            }),
          });
          const body = (await res.json()) as { refresh_token?: string };
          if (res.status !== 200 || !body.refresh_token) return false;
          chain.refresh = body.refresh_token;
          return true;
        } finally {
          chain.busy = false;
        }
      },
      sign_in: async () => {
        const page = await fetch(`${gateway.url}/sign-in`);
        const cookie = page.headers
          .getSetCookie()
          .map((c) => c.split(';')[0])
          .join('; ');
        const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? '';
        const res = await fetch(`${gateway.url}/sign-in`, {
          method: 'POST',
          redirect: 'manual',
          headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, origin },
          body: new URLSearchParams({
            email: 'bench-0@example.com',
            password: 'correct horse battery staple',
            csrf,
          }),
        });
        await res.arrayBuffer();
        return res.status === 303;
      },
    };

    const latencies = new Map<Op, number[]>(MIX.map(([op]) => [op, []]));
    const windows: Array<{
      at: number;
      p99: number;
      rss: number;
      rssPeak: number;
      heap: number;
      heapTotal: number;
      external: number;
      count: number;
      gatewayCpu: number;
      sandboxCpu: number;
    }> = [];
    let windowSamples: number[] = [];
    // RSS once a second, a window's figure their median: one sample taken while a sign-in hashes its
    // password sees argon2's 19 MiB working memory (security/passwords.ts memoryCost), mapped for the hash
    // and unmapped after it (/proc/<pid>/smaps: a 19,456 KiB anonymous mapping), which is load, not growth.
    let rssSamples: number[] = [];
    const rssSampler = setInterval(() => rssSamples.push(rssBytes(pid)), 1_000);
    const errors: string[] = [];
    let inflight = 0;
    let maxInflight = 0;
    const started = performance.now();
    const end = started + SECONDS * 1000;
    let nextWindow = started + WINDOW_MS;
    // CPU of the gateway and of the sandbox per window: a slow window shows which side was busy.
    let cpuMark = { at: performance.now(), gateway: cpuMs(pid), sandbox: cpuMs(sandbox.proc.pid) };
    log(`gateway pid ${pid}; ${RATE} ops/s for ${SECONDS} s`);

    const pick = (): Op => {
      let r = Math.random();
      for (const [op, weight] of MIX) {
        r -= weight;
        if (r <= 0) return op;
      }
      return 'tool_call';
    };
    const pending = new Set<Promise<void>>();
    let n = 0;
    while (performance.now() < end) {
      // Open loop: the k-th operation starts at k / RATE seconds whatever the previous ones do.
      const due = started + (n * 1000) / RATE;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      n++;
      const op = pick();
      inflight++;
      maxInflight = Math.max(maxInflight, inflight);
      const t0 = performance.now();
      const p = ops[op]()
        .then(
          (ok) => {
            if (!ok) errors.push(`${op}: unexpected answer`);
          },
          (error: unknown) => {
            // fetch's own message is only "fetch failed": the cause says which (connect timeout, reset, …).
            const cause = (error as { cause?: { code?: string; message?: string } }).cause;
            const why = cause ? ` (${cause.code ?? cause.message})` : '';
            errors.push(
              `${op} at ${Math.round((performance.now() - started) / 1000)} s: ${error instanceof Error ? error.message : String(error)}${why}`,
            );
          },
        )
        .finally(() => {
          const ms = performance.now() - t0;
          latencies.get(op)?.push(ms);
          // A submit's time is its poll schedule (first poll after 500 ms), not load: kept out of the window
          // p99.
          if (op !== 'submit') windowSamples.push(ms);
          inflight--;
          pending.delete(p);
        });
      pending.add(p);
      if (performance.now() >= nextWindow) {
        nextWindow += WINDOW_MS;
        const sorted = windowSamples.sort((a, b) => a - b);
        const memory = await gatewayHeap(gateway.url);
        const now = { at: performance.now(), gateway: cpuMs(pid), sandbox: cpuMs(sandbox.proc.pid) };
        const span = now.at - cpuMark.at;
        const gatewayCpu = ((now.gateway - cpuMark.gateway) / span) * 100;
        const sandboxCpu = ((now.sandbox - cpuMark.sandbox) / span) * 100;
        cpuMark = now;
        const heap = memory.used;
        windows.push({
          at: Math.round((performance.now() - started) / 1000),
          p99: sorted[Math.floor(sorted.length * 0.99)] ?? 0,
          rss: median(rssSamples.length ? rssSamples : [rssBytes(pid)]),
          rssPeak: Math.max(rssBytes(pid), ...rssSamples),
          heap,
          heapTotal: memory.total,
          external: memory.external,
          count: sorted.length,
          gatewayCpu,
          sandboxCpu,
        });
        const w = windows.at(-1);
        log(
          `t=${w?.at}s ops=${w?.count} p99=${round(w?.p99 ?? 0, 1)} ms rss=${round((w?.rss ?? 0) / MB, 1)} MB (peak ${round((w?.rssPeak ?? 0) / MB, 1)}) heap=${round(heap / MB, 1)}/${round((w?.heapTotal ?? 0) / MB, 1)} MB external=${round((w?.external ?? 0) / MB, 1)} MB cpu gateway ${round(w?.gatewayCpu ?? 0, 0)} % sandbox ${round(w?.sandboxCpu ?? 0, 0)} % errors=${errors.length}`,
        );
        windowSamples = [];
        rssSamples = [];
      }
    }
    await Promise.all(pending);
    clearInterval(rssSampler);
    await gateway.proc.stop();
    await sandbox.proc.stop();

    // ---- figures and verdict ----------------------------------------------------------------------
    // Growth: the mean of the last three windows against the first three after the first minute
    // (single samples swing with GC timing).
    const settled = windows.filter((w) => w.at > 60);
    const mean = (ws: typeof windows, f: (w: (typeof windows)[number]) => number) =>
      ws.length ? ws.reduce((sum, w) => sum + f(w), 0) / ws.length : 0;
    const early = settled.slice(0, 3);
    const late = settled.slice(-3);
    const rssGrowth = (mean(late, (w) => w.rss) - mean(early, (w) => w.rss)) / MB;
    // The end against the first minute (its windows at 30 and 60 s), as a share of the first minute.
    const firstMinuteRss = mean(
      windows.filter((w) => w.at <= 60),
      (w) => w.rss,
    );
    const rssEndPct = firstMinuteRss
      ? ((mean(late, (w) => w.rss) - firstMinuteRss) / firstMinuteRss) * 100
      : 0;
    const heapGrowth = (mean(late, (w) => w.heap) - mean(early, (w) => w.heap)) / MB;
    const worstP99 = Math.max(...windows.map((w) => w.p99));
    const all = [...latencies.values()].flat().sort((a, b) => a - b);
    const q = (xs: number[], p: number) => xs[Math.min(xs.length - 1, Math.floor(p * xs.length))] ?? 0;
    const figures = {
      seconds: SECONDS,
      ratePerSecond: RATE,
      operations: all.length,
      byOperation: Object.fromEntries(
        [...latencies].map(([op, xs]) => {
          const s = [...xs].sort((a, b) => a - b);
          return [op, { count: s.length, p50Ms: round(median(s), 2), p99Ms: round(q(s, 0.99), 2) }];
        }),
      ),
      errors: errors.length,
      firstErrors: errors.slice(0, 5),
      p50Ms: round(q(all, 0.5), 2),
      p99Ms: round(q(all, 0.99), 2),
      worstWindowP99Ms: round(worstP99, 2),
      maxInFlight: maxInflight,
      rssMB: windows.map((w) => round(w.rss / MB, 1)),
      rssPeakMB: windows.map((w) => round(w.rssPeak / MB, 1)),
      heapMB: windows.map((w) => round(w.heap / MB, 1)),
      heapTotalMB: windows.map((w) => round(w.heapTotal / MB, 1)),
      externalMB: windows.map((w) => round(w.external / MB, 1)),
      gatewayCpuPercent: windows.map((w) => round(w.gatewayCpu, 0)),
      sandboxCpuPercent: windows.map((w) => round(w.sandboxCpu, 0)),
      rssGrowthAfterFirstMinuteMB: round(rssGrowth, 1),
      rssEndOverFirstMinutePercent: round(rssEndPct, 1),
      heapGrowthAfterFirstMinuteMB: round(heapGrowth, 1),
    };
    process.stdout.write(`${JSON.stringify(figures, null, 2)}\n`);
    const failures = [
      ...(errors.length ? [`${errors.length} errors`] : []),
      ...(rssGrowth > MAX_GROWTH_MB ? [`RSS grew ${round(rssGrowth, 1)} MB`] : []),
      ...(rssEndPct > MAX_GROWTH_PCT ? [`RSS ended ${round(rssEndPct, 1)} % above the first minute's`] : []),
      ...(heapGrowth > MAX_GROWTH_MB ? [`heap grew ${round(heapGrowth, 1)} MB`] : []),
      ...(worstP99 > MAX_P99_MS ? [`a window's p99 was ${round(worstP99, 1)} ms`] : []),
    ];
    process.stdout.write(failures.length ? `SOAK FAILED: ${failures.join('; ')}\n` : 'SOAK PASSED\n');
    return failures.length ? 1 : 0;
  } finally {
    // SOAK_KEEP=1 keeps the database and the gateway's log for a look afterwards.
    if (process.env.SOAK_KEEP === '1') log(`kept ${work}`);
    else rmSync(work, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(
      `[soak] failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  },
);
