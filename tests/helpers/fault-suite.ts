/**
 * The fault suite: every kind of upstream trouble the sandbox can inject, each against the real
 * server with the v1 and v2 SDK clients (default options) and a tasks client. One sandbox credential
 * per fault and client, so every fault set and every count of upstream creates is its own, and all
 * of them run at once. Per fault it reports the calls answered within the limit (the wait limit plus
 * a stated margin, measured at the client), the work that reached its result, and the work created
 * upstream, which must equal the work asked for. `npm run faults` runs it at realistic timings; the
 * test run at shortened ones (tests/reliability/fault-suite.test.ts).
 */
import { type ClientKind, type Drive, drive, type Work } from './fault-drivers.js';
import type { Harness, Json } from './harness.js';

export interface SuiteTiming {
  name: string;
  /** The server's wait limit (SEARCH_MAX_WAIT_SECONDS and RUN_MAX_WAIT_SECONDS). */
  waitMs: number;
  /** What a call may take beyond the wait limit, measured at the client. */
  marginMs: number;
  /** The server's per-attempt upstream timeout. */
  upstreamTimeoutMs: number;
  /** Added to every upstream request by the latency fault (the issue's ~20 s of 45 s). */
  latencyMs: number;
  retryAfterS: number;
  downS: number;
  /** How late a create's answer comes under the slow-create fault (past the wait limit). */
  slowCreateMs: number;
  /** The upstream's pace of the work itself. */
  speed: 'demo' | 'realistic';
  giveUpMs: number;
  retryPauseMs: number;
  work: readonly Work[];
}

const SEARCH: Work = {
  kind: 'keyword search',
  tool: 'submit_keyword_search',
  args: { query: 'heat pumps', platforms: ['twitter'] },
};
const RUN: Work = {
  kind: 'agent run',
  tool: 'start_agent_run',
  args: { question: 'Are heat pumps trending?' },
};

/** Shortened: a 3 s wait limit, every fault scaled to it; work at the sandbox's demo pace (4 s and 20 s). */
export const SHORT: SuiteTiming = {
  name: 'shortened',
  waitMs: 3_000,
  marginMs: 1_500,
  upstreamTimeoutMs: 2_000,
  latencyMs: 1_400,
  retryAfterS: 1,
  downS: 6,
  slowCreateMs: 4_500,
  speed: 'demo',
  giveUpMs: 120_000,
  retryPauseMs: 300,
  work: [SEARCH, RUN],
};

/** Realistic: the server's defaults (45 s waits, 30 s upstream timeout), ~20 s per upstream request. */
export const REALISTIC: SuiteTiming = {
  name: 'realistic',
  waitMs: 45_000,
  marginMs: 5_000,
  upstreamTimeoutMs: 30_000,
  latencyMs: 20_000,
  retryAfterS: 5,
  downS: 60,
  slowCreateMs: 60_000,
  speed: 'realistic',
  giveUpMs: 20 * 60_000,
  retryPauseMs: 3_000,
  work: [
    SEARCH,
    { kind: 'user search', tool: 'submit_user_search', args: { query: 'heatpumpfan', platform: 'twitter' } },
    { kind: 'expert search', tool: 'submit_expert_search', args: { query: 'heat pump engineers in Norway' } },
    RUN,
  ],
};

export interface FaultKind {
  name: string;
  /** The sandbox fault set (PUT /__sandbox/faults, without the token), or null for none. */
  faults(t: SuiteTiming): Record<string, unknown> | null;
}

export const FAULT_KINDS: readonly FaultKind[] = [
  { name: 'none', faults: () => null },
  { name: 'latency on every request', faults: (t) => ({ latency_ms: t.latencyMs }) },
  { name: '5xx bursts', faults: () => ({ error_rate: 0.5, error_status: 503, remaining: 6 }) },
  {
    name: '429 with Retry-After',
    faults: (t) => ({ rate_limit: true, retry_after_s: t.retryAfterS, remaining: 3 }),
  },
  { name: 'connection resets', faults: () => ({ reset: true, remaining: 3 }) },
  {
    name: 'create answer lost (reset after the create)',
    faults: () => ({ reset: true, after_handling: true, method: 'POST', remaining: 1 }),
  },
  {
    name: 'create answered past the wait limit',
    faults: (t) => ({ latency_ms: t.slowCreateMs, after_handling: true, method: 'POST' }),
  },
  { name: 'hanging requests', faults: () => ({ hang: true, remaining: 2 }) },
  { name: 'down for a while', faults: (t) => ({ down_s: t.downS }) },
];

export const CLIENTS: readonly ClientKind[] = ['v1', 'v2', 'tasks'];

export interface FaultRow {
  fault: string;
  client: ClientKind;
  calls: number;
  /** Calls answered at all (a JSON-RPC result or error), late or not. */
  answered: number;
  withinLimit: number;
  longestMs: number;
  workAsked: number;
  reachedResult: number;
  createdUpstream: number;
  /** Why work did not reach its result, and which calls were late or unanswered. */
  problems: string[];
}

/**
 * The server options the timing asks for (startHarness `mcpOptions`): its waits, and polling at the
 * production pace scaled to the wait limit (the process-wide poll budget as in production).
 */
export function serverOptions(t: SuiteTiming) {
  const scale = t.waitMs / 45_000;
  return {
    searchMaxWaitMs: t.waitMs,
    runMaxWaitMs: t.waitMs,
    upstreamTimeoutMs: t.upstreamTimeoutMs,
    pollInitialMs: Math.round(500 * scale),
    pollMaxMs: Math.round(5_000 * scale),
    pollsPerSecond: 40,
    resultsGraceMs: t.waitMs,
    upstreamBackoffMs: Math.round(200 * scale),
    upstreamCircuitOpenMs: Math.round(10_000 * scale),
  };
}

async function oneCase(h: Harness, t: SuiteTiming, fault: FaultKind, client: ClientKind): Promise<FaultRow> {
  const upstreamToken = await h.credential({ speed: t.speed, producer: true, credits: 1_000 });
  const accessToken = await h.token({ upstreamToken });
  const set = fault.faults(t);
  if (set !== null) await h.control('PUT', '/faults', { token: upstreamToken, ...set });
  const options = { mcpUrl: h.mcpUrl, accessToken, giveUpMs: t.giveUpMs, retryPauseMs: t.retryPauseMs };
  const drives: Drive[] = await Promise.all(t.work.map((w) => drive(client, w, options)));
  await h.control('DELETE', `/faults?token=${upstreamToken}`);
  const creates: Json = await h.control('GET', `/credentials/${upstreamToken}/creates`);
  const limit = t.waitMs + t.marginMs;
  const calls = drives.flatMap((d) => d.calls);
  const late = calls.filter((c) => !c.answered || c.ms > limit);
  const unanswered = late.filter((c) => !c.answered).length;
  const problems = [
    ...drives.flatMap((d, i) => (d.completed ? [] : [`${t.work[i]?.kind}: ${d.error}`])),
    ...(late.length > unanswered ? [`${late.length - unanswered} calls answered past ${limit} ms`] : []),
    ...(unanswered > 0 ? [`${unanswered} calls not answered`] : []),
  ];
  return {
    fault: fault.name,
    client,
    calls: calls.length,
    answered: calls.length - unanswered,
    withinLimit: calls.length - late.length,
    longestMs: Math.round(Math.max(0, ...calls.map((c) => c.ms))),
    workAsked: t.work.length,
    reachedResult: drives.filter((d) => d.completed).length,
    createdUpstream: creates.total,
    problems,
  };
}

/** Between the starts of two cases: users do not all press enter in the same millisecond. */
const STAGGER_MS = 50;

/**
 * Every fault kind with every client (or the clients `clientsOf` picks for it), all at once, after one
 * call that warms the server up (its first create loads modules and makes the first database writes,
 * which on a loaded machine alone can outlast a shortened limit); the cases start 50 ms apart.
 */
export async function runFaultSuite(
  h: Harness,
  t: SuiteTiming,
  kinds: readonly FaultKind[] = FAULT_KINDS,
  clientsOf: (fault: FaultKind, index: number) => readonly ClientKind[] = () => CLIENTS,
): Promise<FaultRow[]> {
  const warm = await h.credential({ speed: 'instant', producer: true });
  await drive(
    'v2',
    { kind: 'warm-up', tool: 'submit_expert_search', args: { query: 'warm-up' } },
    {
      mcpUrl: h.mcpUrl,
      accessToken: await h.token({ upstreamToken: warm }),
      giveUpMs: 60_000,
      retryPauseMs: t.retryPauseMs,
    },
  );
  const cases = kinds.flatMap((fault, i) => clientsOf(fault, i).map((client) => ({ fault, client })));
  return Promise.all(
    cases.map(async ({ fault, client }, i) => {
      await new Promise((r) => setTimeout(r, i * STAGGER_MS));
      return oneCase(h, t, fault, client);
    }),
  );
}

/** A row passes when every call was answered in time, all work reached its result, none was made twice. */
export const rowPasses = (r: FaultRow) =>
  r.withinLimit === r.calls && r.reachedResult === r.workAsked && r.createdUpstream === r.workAsked;

/** The report as a Markdown table (docs/long-running-calls.md quotes it). */
export function reportTable(t: SuiteTiming, rows: readonly FaultRow[]): string {
  const limit = `${(t.waitMs + t.marginMs) / 1000} s`;
  const lines = [
    `Timings: ${t.name} (wait limit ${t.waitMs / 1000} s, calls must answer within ${limit}; work per client: ${t.work.map((w) => w.kind).join(', ')})`,
    '',
    '| fault | client | calls within the limit | longest call | work reaching its result | created upstream / asked |',
    '| --- | --- | --- | --- | --- | --- |',
    ...rows.map(
      (r) =>
        `| ${r.fault} | ${r.client} | ${r.withinLimit}/${r.calls} | ${(r.longestMs / 1000).toFixed(1)} s | ${r.reachedResult}/${r.workAsked} | ${r.createdUpstream}/${r.workAsked} |`,
    ),
  ];
  return lines.join('\n');
}
