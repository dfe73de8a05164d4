/**
 * The bench's table: every figure with its target and whether it is met, and the same figure from the
 * before run (BEFORE_FILE below) where that run had it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { PollFloorSample } from './figures/poll-floor.js';
import type { FloorSample, PairedSample, ProxySample } from './figures/proxy.js';
import type { ThroughputSample } from './figures/throughput.js';
import type { WaitingSample } from './figures/waiting.js';
import { ROOT } from './lib/proc.js';
import { MB, median, round } from './lib/stats.js';
import type { Report, Row } from './report.js';

/**
 * The "before" column: the same bench run on the same machine against an earlier commit
 * (BENCH_GATEWAY_DIR=<a built worktree of that commit> npm run bench, its latest.json kept under
 * this name). BENCH_BEFORE_FILE names another.
 */
export const BEFORE_FILE = process.env.BENCH_BEFORE_FILE
  ? resolve(process.env.BENCH_BEFORE_FILE)
  : join(ROOT, 'bench', 'results', 'before-bf59e58.json');

export interface Measured {
  throughput: ThroughputSample[];
  proxy1: ProxySample[];
  proxy32: ProxySample[];
  /** The bare route's own upstream pass-through (bench/figures/proxy.ts:floorRound), per round. */
  floors: FloorSample[];
  /** The proxied call and the floor route turn about (bench/figures/proxy.ts:pairedRound), per round. */
  paired: PairedSample[];
  token: Array<{ rps: number; p50: number; p99: number; cpuUs: number }>;
  waits: WaitingSample[];
  /** One upstream poll made by a process that does nothing else (bench/figures/poll-floor.ts). */
  pollFloor?: PollFloorSample;
  /** The large waiting run (10,000 calls by default), when run. */
  manyWaits: WaitingSample | null;
  completion: { p50Ms: number; p90Ms: number; completed: number; calls: number } | null;
  coldStartMs: number[];
  idleStartBytes: number[];
  rssSoonAfter: number[];
  rssSettled: number[];
  settings: { waitingCalls: number; idleSettleMs: number; waitingLagMs: number };
}

const m = median;
const ms = (x: number) => `${round(x, 2)} ms`;
const us = (x: number) => `${Math.round(x)} µs`;
/** The median of per-round figures with their range: `0.52 ms (0.41–0.77 over 3 rounds)`. */
const spread = (xs: number[]) =>
  `${ms(m(xs))} (${round(Math.min(...xs), 2)}–${round(Math.max(...xs), 2)} over ${xs.length} rounds)`;

export function benchRows(f: Measured): Row[] {
  const { throughput, proxy1, proxy32, token, waits } = f;
  const cpu = {
    baseline: m(throughput.map((s) => s.cpuUs.baseline)),
    modern: m(throughput.map((s) => s.cpuUs.modern / s.cpuUs.baseline)),
    legacy: m(throughput.map((s) => s.cpuUs.legacy / s.cpuUs.baseline)),
    legacyIdentity: m(throughput.map((s) => s.cpuUs.legacyIdentity / s.cpuUs.baseline)),
    floor: m(f.floors.map((x, i) => x.floor.cpuUs / (throughput[i]?.cpuUs.baseline ?? Number.NaN))),
    proxyOverFloor: m(proxy1.map((s, i) => s.cpuUs / (f.floors[i]?.floor.cpuUs ?? Number.NaN))),
    // Ratios within a round: each gateway figure over the same round's baseline.
    proxy: m(proxy1.map((s, i) => s.cpuUs / (throughput[i]?.cpuUs.baseline ?? Number.NaN))),
    token: m(token.map((t, i) => t.cpuUs / (throughput[i]?.cpuUs.baseline ?? Number.NaN))),
  };
  const cpuAbs = {
    modern: m(throughput.map((s) => s.cpuUs.modern)),
    legacy: m(throughput.map((s) => s.cpuUs.legacy)),
    legacyIdentity: m(throughput.map((s) => s.cpuUs.legacyIdentity)),
    floor: m(f.floors.map((x) => x.floor.cpuUs)),
    proxy: m(proxy1.map((s) => s.cpuUs)),
    token: m(token.map((t) => t.cpuUs)),
  };
  const ratio = (name: keyof (typeof throughput)[number]) =>
    m(throughput.map((s) => (s[name] as number) / s.baseline));
  const overDirect = (samples: ProxySample[], q: 'p50' | 'p99') =>
    samples.map((s) => s.viaMcp[q] - s.direct[q]);
  const overhead = (samples: ProxySample[], q: 'p50' | 'p99') => m(overDirect(samples, q));
  // Over the pass-through floor (the same upstream GET through a bare route), per round: the median
  // and the rounds' range, so a change of 0.1 ms is read against the spread of the rounds. The target
  // is read turn about (both sides in one run); the figure of two separate runs is kept beside it.
  const apart = (q: 'p50' | 'p99') =>
    proxy1.map((s, i) => s.viaMcp[q] - (f.floors[i]?.floor[q] ?? Number.NaN));
  const turnAbout = (q: 'p50' | 'p99') => f.paired.map((s) => s.viaMcp[q] - s.floor[q]);
  const floorP50 = turnAbout('p50');
  const floorP99 = turnAbout('p99');
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
    pollRate: m(waits.map((x) => x.pollsPerSecondWhileWaiting)),
    cpuPerPoll: m(waits.map((x) => x.cpuUsPerPollWhileWaiting)),
    medianWait: m(waits.map((x) => x.medianWaitMs)),
  };
  const coldMs = m(f.coldStartMs);
  const idleStart = m(f.idleStartBytes) / MB;
  const rssAfterLoad = (f.rssSettled.at(-1) ?? 0) / MB;
  const growth = ((f.rssSettled.at(-1) ?? 0) - (f.rssSettled[0] ?? 0)) / MB;
  const n = f.settings.waitingCalls;
  const rows: Row[] = [
    {
      figure: 'baseline: bare Hono route',
      value: `${Math.round(m(throughput.map((s) => s.baseline)))} req/s`,
      target: '(reference)',
      met: null,
    },
    { figure: 'baseline: server CPU per request', value: us(cpu.baseline), target: '(reference)', met: null },
    {
      figure: 'server CPU per tools/list 2026-07-28 ÷ baseline',
      value: `${us(cpuAbs.modern)} = ${round(cpu.modern, 1)} ×`,
      target: '≤ 3 ×',
      met: cpu.modern <= 3,
    },
    {
      figure: 'server CPU per tools/list 2025-06-18 ÷ baseline',
      value: `${us(cpuAbs.legacy)} = ${round(cpu.legacy, 1)} ×`,
      target: '≤ 3 ×',
      met: cpu.legacy <= 3,
    },
    {
      figure: 'server CPU per tools/list 2025-06-18, client without compression ÷ baseline',
      value: `${us(cpuAbs.legacyIdentity)} = ${round(cpu.legacyIdentity, 1)} ×`,
      target: '(reference)',
      met: null,
    },
    {
      figure: 'server CPU per proxied GET (get_keyword_search) ÷ baseline',
      value: `${us(cpuAbs.proxy)} = ${round(cpu.proxy, 1)} ×`,
      target: '≤ 4 ×',
      met: cpu.proxy <= 4,
    },
    {
      figure: 'floor: the same upstream GET passed through by a bare route, CPU ÷ baseline',
      value: `${us(cpuAbs.floor)} = ${round(cpu.floor, 1)} ×`,
      target: '(reference)',
      met: null,
    },
    {
      figure: 'server CPU per proxied GET ÷ floor',
      value: `${round(cpu.proxyOverFloor, 2)} ×`,
      target: '(reference)',
      met: null,
    },
    {
      figure: 'server CPU per refresh grant ÷ baseline',
      value: `${us(cpuAbs.token)} = ${round(cpu.token, 1)} ×`,
      target: '(reference)',
      met: null,
    },
    {
      figure: 'ceiling: tools/list answer from a bare route ÷ baseline',
      value: `${Math.round(m(throughput.map((s) => s.ceiling)))} req/s = ${round(ratio('ceiling'))}`,
      target: '(reference)',
      met: null,
    },
    {
      figure: 'tools/list 2026-07-28 ÷ baseline',
      value: `${Math.round(m(throughput.map((s) => s.modern)))} req/s = ${round(ratio('modern'))}`,
      target: '≥ 0.3',
      met: ratio('modern') >= 0.3,
    },
    {
      figure: 'tools/list 2025-06-18 ÷ baseline',
      value: `${Math.round(m(throughput.map((s) => s.legacy)))} req/s = ${round(ratio('legacy'))}`,
      target: '≥ 0.3',
      met: ratio('legacy') >= 0.3,
    },
    {
      figure: 'proxied tools/call over the pass-through floor p50, 1 connection, turn about',
      value: spread(floorP50),
      target: '≤ 0.6 ms',
      met: m(floorP50) <= 0.6,
    },
    {
      figure: 'proxied tools/call over the pass-through floor p99, 1 connection, turn about',
      value: spread(floorP99),
      target: '≤ 3 ms',
      met: m(floorP99) <= 3,
    },
    {
      figure: 'the same two, each side measured in a run of its own: p50 / p99',
      value: `${spread(apart('p50'))} / ${spread(apart('p99'))}`,
      target: '(reference)',
      met: null,
    },
    {
      figure: 'proxy overhead p50, 1 connection',
      value: spread(overDirect(proxy1, 'p50')),
      target: '≤ 0.7 ms',
      met: o.p50c1 <= 0.7,
    },
    {
      figure: 'proxy overhead p99, 1 connection',
      value: spread(overDirect(proxy1, 'p99')),
      target: '≤ 3 ms',
      met: o.p99c1 <= 3,
    },
    { figure: 'proxy overhead p50, 32 connections', value: ms(o.p50c32), target: '(reference)', met: null },
    { figure: 'proxy overhead p99, 32 connections', value: ms(o.p99c32), target: '(reference)', met: null },
    {
      figure: 'token endpoint: refresh grants',
      value: `${Math.round(tokenRps)} /s`,
      target: '≥ 1,000 /s',
      met: tokenRps >= 1_000,
    },
    {
      // Heap per waiting call (below) is the figure that counts; RSS also moves with when V8 grows its heap
      // and when glibc gives memory back, which swings it by tens of KB per call between runs.
      figure: `waiting calls (${n}): RSS per call`,
      value: `${round(w.rss, 1)} KB`,
      target: '(reference)',
      met: null,
    },
    {
      figure: `waiting calls (${n}): heap per call`,
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
    ...pollFloorRows(w.cpuPerPoll, w.pollRate, f.pollFloor),
    {
      // What the poll budget (UPSTREAM_POLLS_PER_SECOND) costs: more calls waiting than it reads every
      // pollMaxMs are each read less often, so their answers come later.
      figure: `waiting calls (${n}): median time from the first submission to the answer (results ${f.settings.waitingLagMs / 1000} s after each search finished)`,
      value: ms(w.medianWait),
      target: '(reference)',
      met: null,
    },
    {
      figure: 'waiting calls: upstream polls per search',
      value: `${round(w.polls, 1)} (completed ${w.completed})`,
      target: `≤ ${round(w.bound, 1)}`,
      met: w.polls <= w.bound,
    },
  ];
  if (f.manyWaits) {
    const x = f.manyWaits;
    rows.push({
      figure: `waiting calls (${x.calls}): gateway RSS at its peak`,
      value: `${round(x.rssPeakMB, 0)} MB (heap ${round(x.heapPerCallKB, 1)} KB per call, completed ${x.completed}/${x.calls})`,
      target: '< 400 MB',
      met: x.rssPeakMB < 400 && x.completed === x.calls,
    });
  }
  if (f.completion) {
    const c = f.completion;
    rows.push({
      figure: 'completion seen after the upstream finishes, p50 (p90)',
      value: `${ms(c.p50Ms)} (${ms(c.p90Ms)}), ${c.completed}/${c.calls} searches; fixed 5 s polling: 2,500 ms`,
      target: '≤ 1,000 ms',
      met: c.p50Ms <= 1_000 && c.completed === c.calls,
    });
  }
  rows.push(
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
      value: `${round((f.rssSoonAfter.at(-1) ?? 0) / MB, 1)} MB`,
      target: '(reference)',
      met: null,
    },
    {
      figure: `idle RSS ${f.settings.idleSettleMs / 1000} s after the load`,
      value: `${round(rssAfterLoad, 1)} MB`,
      target: '≤ 120 MB',
      met: rssAfterLoad <= 120,
    },
    {
      figure: `RSS growth across waiting repeats (each ${f.settings.idleSettleMs / 1000} s after)`,
      value: `${round(growth, 1)} MB (${f.rssSettled.map((x) => round(x / MB, 0)).join(' → ')})`,
      target: '≤ 10 MB',
      met: growth <= 10,
    },
  );
  return rows;
}

/** Adds each row's figure from the before run (BEFORE_FILE), where it had the same figure. */
export function withBefore(rows: Row[]): Row[] {
  if (!existsSync(BEFORE_FILE)) return rows;
  const before = JSON.parse(readFileSync(BEFORE_FILE, 'utf8')) as Report;
  const old = new Map(before.rows.map((r) => [r.figure, r.value]));
  return rows.map((r) => ({ ...r, before: old.get(r.figure) ?? '(new)' }));
}

/**
 * What the waiting calls' CPU is made of: the gateway's CPU per upstream poll while they wait (all of
 * it, notifications and keep-alives included) over a bare poll's, and the bare poll's CPU at the rate
 * the backoff polled: the least CPU those waits can cost here, whatever the gateway does.
 */
function pollFloorRows(cpuPerPoll: number, pollRate: number, floor: PollFloorSample | undefined): Row[] {
  if (!floor || !Number.isFinite(cpuPerPoll)) return [];
  const floorPercent = (floor.cpuUsPerPoll * pollRate) / 10_000;
  return [
    {
      figure: 'waiting calls: gateway CPU per upstream poll ÷ a bare poll',
      value: `${Math.round(cpuPerPoll)} µs ÷ ${Math.round(floor.cpuUsPerPoll)} µs = ${round(cpuPerPoll / floor.cpuUsPerPoll, 2)} × (record ${floor.recordBytes} B)`,
      target: '(reference)',
      met: null,
    },
    {
      figure: 'waiting calls: bare polls alone at the rate polled',
      value: `${round(pollRate, 0)} polls/s × ${Math.round(floor.cpuUsPerPoll)} µs = ${round(floorPercent, 1)} % of a core`,
      target: '(reference: the least the 5 % above could be)',
      met: null,
    },
  ];
}
