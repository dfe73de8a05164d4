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
import { type CapturedRequest, captureRequests, identityOnly } from './capture.js';
import { completionDelay } from './figures/completion.js';
import { contextRows, measureContextCost, readBefore } from './figures/context.js';
import { engineFigures } from './figures/engines.js';
import { hotPathChecks, hotPathRows } from './figures/hot-path.js';
import { pollFloor } from './figures/poll-floor.js';
import {
  type FloorSample,
  floorRound,
  type PairedSample,
  type ProxySample,
  pairedRound,
  proxyRound,
} from './figures/proxy.js';
import { coldStarts } from './figures/startup.js';
import {
  type PolledTasksSample,
  polledTasks,
  taskRows,
  tasksGetRound,
  workingTaskRequest,
} from './figures/tasks.js';
import { type ThroughputSample, TOOLS_LIST_CONNECTIONS, toolsListRound } from './figures/throughput.js';
import { TOKEN_CONNECTIONS, tokenRound } from './figures/token.js';
import { type WaitingSample, waitingCalls } from './figures/waiting.js';
import { latency } from './lib/latency.js';
import { median, rssBytes } from './lib/stats.js';
import { machine, type Row, table, write } from './report.js';
import { benchRows, withBefore } from './rows.js';
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
  /** The large waiting run (0: skipped); its lag leaves time for every call to be submitted. */
  manyWaitingCalls: env('BENCH_WAIT_MANY', 10_000),
  /** How long its searches run: the sandbox's realistic speed, 15 s pending and 150 s collecting. */
  manyWaitingLagMs: env('BENCH_MANY_LAG_MS', 165_000),
  completionCalls: env('BENCH_COMPLETION_CALLS', 50),
  /** Working tasks polled by their clients at pollIntervalMs (0: skipped), and the CPU window's length. */
  polledTasks: env('BENCH_TASKS', 1_000),
  polledTasksWindowMs: env('BENCH_TASKS_WINDOW_MS', 20_000),
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
    // One more for the tasks/get figure's task, which stays working for the whole run.
    const taskCredential = await credential(sandbox, { credits: 1_000 });
    const poolSize = TOKEN_CONNECTIONS * (settings.rounds + 1) + 16;
    const data = await setupDatabase(databasePath, [main, ...waiting, taskCredential], poolSize);
    const mainGrant = data.grants[0];
    const taskGrant = data.grants.at(-1);
    if (!mainGrant || !taskGrant) throw new Error('no bench grant');
    const waitingGrants = data.grants.slice(1, 1 + settings.waitingCredentials);

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
    const directGet = {
      url: `${sandbox.searchUrl}/api/iq/keyword_search/${searchId}`,
      headers: { 'X-SERVICE-TOKEN': main, 'X-SERVICE-USER-ID': 'bench-user-0' },
    };
    const baseline = await startBaseline(
      await toolsListAnswer(mcpUrl, identityOnly(requests.legacy), work),
      directGet,
    );
    log(`captured tools/list: modern ${JSON.stringify(requests.modern.headers)}`);
    log(`captured tools/list: legacy ${JSON.stringify(requests.legacy.headers)}`);
    const target = { searchUrl: sandbox.searchUrl, upstreamToken: main, searchId };
    const tasksGet = await workingTaskRequest(mcpUrl, sandbox, taskGrant, requests.modern);
    const tasksGetRounds: Array<{ tasksGetUs: number; baselineUs: number; toolsListUs: number }> = [];

    const throughput: ThroughputSample[] = [];
    const proxy1: ProxySample[] = [];
    const proxy32: ProxySample[] = [];
    const floors: FloorSample[] = [];
    const paired: PairedSample[] = [];
    const token: Array<{ rps: number; p50: number; p99: number; cpuUs: number }> = [];
    // Round 0 warms the JIT and the caches and is not counted.
    for (let r = 0; r <= settings.rounds; r++) {
      const seconds = r === 0 ? 1 : settings.secondsPerRun;
      log(`round ${r}${r === 0 ? ' (warm-up)' : ''}`);
      const pid = gateway.proc.pid;
      // The gateway was quiet through the last round's floor figures, long enough for its idle
      // collection, which shrinks the young generation: the next seconds of calls cost more until it
      // has grown back. Two seconds of calls first, so no figure takes that on.
      if (r > 0)
        await latency({ url: mcpUrl, method: 'POST', connections: 4, seconds: 2, ...requests.toolsCall });
      const t = await toolsListRound(baseline.url, mcpUrl, requests, seconds, {
        baseline: baseline.proc.pid,
        gateway: pid,
      });
      const g = await tasksGetRound(mcpUrl, tasksGet, seconds, pid);
      const p1 = await proxyRound(target, mcpUrl, requests.toolsCall, 1, seconds, pid);
      // Turn about right after the gateway's own closed loop, while it is warm (see the round's start).
      const pr = await pairedRound(mcpUrl, `${baseline.url}/floor`, requests.toolsCall, seconds, pid);
      const p32 = await proxyRound(target, mcpUrl, requests.toolsCall, 32, seconds, pid);
      const k = await tokenRound(gateway.url, data.clientId, data.refreshPool, seconds, pid);
      const f = await floorRound(
        { url: baseline.url, pid: baseline.proc.pid },
        directGet,
        requests.toolsCall,
        seconds,
      );
      if (r === 0) continue;
      tasksGetRounds.push({ tasksGetUs: g.cpuUs, baselineUs: t.cpuUs.baseline, toolsListUs: t.cpuUs.modern });
      floors.push(f);
      paired.push(pr);
      throughput.push(t);
      proxy1.push(p1);
      proxy32.push(p32);
      token.push(k);
      await sleep(2_000);
      rssTrail.push(rssBytes(gateway.proc.pid));
    }

    log('hot path: the cost of each check a request passes');
    const hotPath = hotPathChecks(requests.toolsCall.body);

    const waits: WaitingSample[] = [];
    // Every repeat starts from a settled gateway, as the second does after the first's idle wait, so
    // the repeats measure the same thing. The first still costs more (6.0 % of a core against 3.7 %,
    // 2026-11-26): the first burst on this heap grows it, and the idle collector's one memory-reducing
    // collection of it (housekeeping/idle-gc.ts) falls in that repeat's window.
    await sleep(settings.idleSettleMs);
    for (let i = 0; i < settings.waitingRepeats; i++) {
      log(
        `waiting calls ${i + 1}/${settings.waitingRepeats}: ${settings.waitingCalls} calls, lag ${settings.waitingLagMs} ms`,
      );
      waits.push(
        await waitingCalls({
          gateway: { url: gateway.url, pid: gateway.proc.pid, settledHeap: gateway.settledHeap },
          sandbox,
          grants: waitingGrants,
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

    const polled: PolledTasksSample[] = [];
    if (settings.polledTasks > 0) {
      log(
        `polled tasks: ${settings.polledTasks} working tasks, windows of ${settings.polledTasksWindowMs} ms`,
      );
      polled.push(
        await polledTasks({
          gateway: { url: gateway.url, pid: gateway.proc.pid },
          sandbox,
          grants: waitingGrants,
          modern: requests.modern,
          tasks: settings.polledTasks,
          windowMs: settings.polledTasksWindowMs,
        }),
      );
      await sleep(settings.idleSettleMs);
    }

    let completion = null;
    if (settings.completionCalls > 0) {
      log(`completion delay: ${settings.completionCalls} demo-speed searches`);
      completion = await completionDelay({
        gatewayUrl: gateway.url,
        sandbox,
        grant: mainGrant,
        calls: settings.completionCalls,
      });
    }
    log('poll floor: a bare upstream poll of a search in results lag');
    const floor = await pollFloor(sandbox, await credential(sandbox, { credits: 1_000 }));
    let manyWaits: WaitingSample | null = null;
    if (settings.manyWaitingCalls > 0) {
      log(`waiting calls: ${settings.manyWaitingCalls} at once, lag ${settings.manyWaitingLagMs} ms`);
      manyWaits = await waitingCalls({
        gateway: { url: gateway.url, pid: gateway.proc.pid, settledHeap: gateway.settledHeap },
        sandbox,
        grants: waitingGrants,
        calls: settings.manyWaitingCalls,
        lagMs: settings.manyWaitingLagMs,
        slowBy: 'realistic',
      }).catch((error: unknown) => {
        log(`the large waiting run failed: ${String(error)}`);
        return null;
      });
    }

    await baseline.proc.stop();
    await gateway.proc.stop();
    // The engines side by side (bench/figures/engines.ts): BENCH_ENGINES=0 skips them.
    const engines =
      process.env.BENCH_ENGINES === '0'
        ? []
        : await engineFigures({
            sandbox,
            upstreamToken: main,
            work,
            rounds: settings.rounds,
            seconds: settings.secondsPerRun,
            log,
          });
    await sandbox.proc.stop();

    // ---- figures ------------------------------------------------------------------------------
    const rows: Row[] = [
      ...withBefore(
        benchRows({
          throughput,
          proxy1,
          proxy32,
          floors,
          paired,
          token,
          waits,
          pollFloor: floor,
          manyWaits,
          completion,
          coldStartMs: cold.startMs,
          idleStartBytes: [...cold.idleRssBytes, rssAfterStart],
          rssSoonAfter,
          rssSettled,
          settings,
        }),
      ),
      ...withBefore(hotPathRows(hotPath, median(proxy1.map((s) => s.cpuUs)))),
      ...withBefore(taskRows(tasksGetRounds, polled)),
      ...contextRows(context, readBefore()),
      ...engines,
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
        floors,
        paired,
        hotPath,
        token,
        waits,
        tasksGetRounds,
        polled,
        pollFloor: floor,
        manyWaits,
        completion,
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
