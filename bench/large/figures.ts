/**
 * What the large-database bench measures on one gateway: tools/list with uncached bearers (server CPU
 * per request, and the cluster's on PostgreSQL), the team audit pages' first byte (first page, a deep
 * page, each filter; the big team and the tiny one), the exports' first byte, refresh grants, and a
 * housekeeping pass with requests running beside it.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { loadavg } from 'node:os';
import { tokenRound } from '../figures/token.js';
import type { ClusterWatch } from '../lib/postgres-watch.js';
import { cpuMs, median } from '../lib/stats.js';
import {
  closedLoop,
  firstBytes,
  mcpHeaders,
  quantile,
  type Timed,
  TOOLS_LIST_BODY,
  timedRequest,
} from './probe.js';
import {
  accessToken,
  accessTokenValid,
  BIG_TEAM,
  clientId,
  DAY,
  grantIsLive,
  refreshToken,
  type Shape,
  sessionToken,
  TINY_TEAM,
  teamId,
  tinyTeamOwner,
  userId,
} from './shape.js';

export type Figures = Record<string, number>;

export interface Target {
  url: string;
  pid: number;
  shape: Shape;
  /** The big team's event 50,000 back from its newest: where the deep page starts. */
  deep: { at: number; id: number };
  cluster?: { watch: ClusterWatch; database: string };
}

const PAGE_SAMPLES = 5;
const SESSION_COOKIE = '__Host-sim_session';

/** Access tokens of live grants spread over the whole table, at most `max`. */
export function bearerPool(shape: Shape, max = 20_000): string[] {
  const stride = Math.max(1, Math.floor(shape.grants / (max * 2.5)));
  const pool: string[] = [];
  for (let g = shape.benchClientGrants; g < shape.grants && pool.length < max; g += stride)
    if (accessTokenValid(g)) pool.push(accessToken(g));
  return pool;
}

/** Refresh tokens of the bench client's live grants: one chain each. */
export function refreshPool(shape: Shape): string[] {
  const pool: string[] = [];
  for (let g = 0; g < shape.benchClientGrants; g++) if (grantIsLive(g)) pool.push(refreshToken(g));
  return pool;
}

async function bearerFigures(t: Target, rounds: number, seconds: number, into: Figures) {
  const pool = bearerPool(t.shape);
  let next = 0;
  const request = () => ({
    method: 'POST',
    headers: mcpHeaders(pool[next++ % pool.length] as string),
    body: TOOLS_LIST_BODY,
  });
  const cpu: number[] = [];
  const clusterCpu: number[] = [];
  const p50: number[] = [];
  const p99: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const before = cpuMs(t.pid);
    const cluster = t.cluster ? await t.cluster.watch.read(t.cluster.database) : null;
    const samples = await closedLoop(`${t.url}/mcp`, 2, seconds, request);
    const used = cpuMs(t.pid) - before;
    if (t.cluster && cluster) {
      const after = await t.cluster.watch.read(t.cluster.database);
      clusterCpu.push(((after.cpuMs - cluster.cpuMs) * 1000) / samples.length);
    }
    cpu.push((used * 1000) / samples.length);
    const ms = samples.map((s) => s.ms).sort((a, b) => a - b);
    p50.push(quantile(ms, 0.5));
    p99.push(quantile(ms, 0.99));
  }
  if (pool.length < 5_000)
    throw new Error(`only ${pool.length} bearer tokens: the bearer cache would answer`);
  into['tools/list, uncached bearer: gateway CPU µs/request'] = median(cpu);
  if (clusterCpu.length) into['tools/list, uncached bearer: PostgreSQL CPU µs/request'] = median(clusterCpu);
  into['tools/list, uncached bearer: p50 ms'] = median(p50);
  into['tools/list, uncached bearer: p99 ms'] = median(p99);
}

function dayOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** The audit pages and exports of both teams; first byte, median and worst of PAGE_SAMPLES. */
async function auditFigures(t: Target, into: Figures) {
  const s = t.shape;
  const day = dayOf(s.now - 100 * DAY);
  const teams = [
    { name: 'big team', id: teamId(BIG_TEAM), cookie: sessionToken(0), member: userId(5) },
    {
      name: 'tiny team',
      id: teamId(TINY_TEAM),
      cookie: sessionToken(1),
      member: userId(tinyTeamOwner(s) + 1),
    },
  ];
  for (const team of teams) {
    const base = `${t.url}/workspaces/${team.id}/audit`;
    const headers = { cookie: `${SESSION_COOKIE}=${team.cookie}` };
    const first = await timedRequest(base, { headers });
    if (first.status !== 200) throw new Error(`${base}: status ${first.status}`);
    // A build that pages by number links page=2; one that pages by cursor links before=<at>.<id>.
    const deep = /[?&;]page=2/.test(first.body) ? 'page=1000' : `before=${t.deep.at}.${t.deep.id}`;
    const pages: [string, string][] = [
      ['page 1', ''],
      ...(team.name === 'big team'
        ? ([['deep page (50,000 events back)', `?${deep}`]] as [string, string][])
        : []),
      ['sign-ins only', '?kind=sign_in'],
      ['a rare kind (member role changes)', '?kind=member_role_changed'],
      ['one member', `?member=${team.member}`],
      ['one tool', '?tool=create_schedule'],
      ['one day', `?from=${day}&to=${day}`],
      ['CSV export', '?format=csv'],
      ['JSON export', '?format=json'],
    ];
    for (const [label, query] of pages) {
      const samples = await firstBytes(`${base}${query}`, headers, PAGE_SAMPLES);
      into[`audit, ${team.name}, ${label}: first byte ms (median)`] = median(samples);
      into[`audit, ${team.name}, ${label}: first byte ms (worst)`] = samples.at(-1) as number;
    }
  }
}

async function refreshFigures(t: Target, rounds: number, seconds: number, into: Figures) {
  const pool = refreshPool(t.shape);
  const rates: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const result = await tokenRound(t.url, clientId(0), pool, seconds, t.pid, 8);
    rates.push(result.rps);
  }
  into['refresh grants /s (8 connections)'] = median(rates);
}

export async function gatewayFigures(t: Target, rounds: number, seconds: number): Promise<Figures> {
  const figures: Figures = {};
  await bearerFigures(t, rounds, seconds, figures);
  await auditFigures(t, figures);
  await refreshFigures(t, rounds, seconds, figures);
  return figures;
}

/** The lines appended to a log file since the last read (a busy gateway logs every request). */
function logTail(file: string) {
  const fd = openSync(file, 'r');
  let offset = 0;
  let partial = '';
  const buffer = Buffer.alloc(1 << 20);
  return {
    read(): string[] {
      const lines: string[] = [];
      for (;;) {
        const n = readSync(fd, buffer, 0, buffer.length, offset);
        if (n === 0) return lines;
        offset += n;
        const text = partial + buffer.toString('utf8', 0, n);
        const parts = text.split('\n');
        partial = parts.pop() ?? '';
        lines.push(...parts);
      }
    },
    close: () => closeSync(fd),
  };
}

/**
 * Requests beside a housekeeping pass: tools/list with uncached bearers, refresh grants and the tiny
 * team's audit page, one connection each, from the gateway's start until its pass is logged as done.
 * `logFile` is the gateway's log; `passDue` when its first pass starts (performance.now() time).
 */
export async function purgeFigures(
  t: Omit<Target, 'deep'>,
  logFile: string,
  passDue: number,
  timeoutMs: number,
): Promise<Figures> {
  const pool = bearerPool(t.shape);
  const chains = refreshPool(t.shape);
  let next = 0;
  let chain = chains.pop() as string;
  const samples: Timed[] = [];
  let stop = false;
  let passEnd = Number.NaN;
  let passMs = Number.NaN;
  let loadAtEnd = Number.NaN;
  let failed = '';
  const log = logTail(logFile);
  const watchLog = (async () => {
    const deadline = performance.now() + timeoutMs;
    while (performance.now() < deadline) {
      const line = log.read().find((l) => /"msg":"housekeeping( failed)?"/.test(l));
      if (line) {
        passEnd = performance.now();
        loadAtEnd = loadavg()[0] ?? Number.NaN;
        const parsed = JSON.parse(line) as { msg: string; durationMs?: number; err?: unknown };
        if (parsed.msg !== 'housekeeping') failed = JSON.stringify(parsed.err).slice(0, 300);
        passMs = parsed.durationMs ?? passEnd - passDue;
        return;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  })().finally(() => {
    stop = true;
    log.close();
  });
  const loop = async (send: () => Promise<number>) => {
    while (!stop) {
      const start = performance.now();
      const status = await send();
      samples.push({ start, ms: performance.now() - start, status });
    }
  };
  const headers = { cookie: `${SESSION_COOKIE}=${sessionToken(1)}` };
  await Promise.all([
    watchLog,
    loop(async () => {
      const token = pool[next++ % pool.length] as string;
      const r = await timedRequest(`${t.url}/mcp`, {
        method: 'POST',
        headers: mcpHeaders(token),
        body: TOOLS_LIST_BODY,
      });
      return r.status;
    }),
    loop(async () => {
      const body = new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: chain,
        client_id: clientId(0),
      });
      const r = await timedRequest(`${t.url}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: body.toString(),
      });
      if (r.status === 200) chain = (JSON.parse(r.body) as { refresh_token: string }).refresh_token;
      return r.status;
    }),
    loop(
      async () => (await timedRequest(`${t.url}/workspaces/${teamId(TINY_TEAM)}/audit`, { headers })).status,
    ),
  ]);
  if (failed) throw new Error(`the housekeeping pass failed: ${failed}`);
  const bad = samples.filter((s) => s.status !== 200);
  if (bad.length) throw new Error(`${bad.length} requests beside the purge did not answer 200`);
  const figures: Figures = {};
  if (Number.isNaN(passEnd)) {
    figures['housekeeping pass: seconds'] = Number.POSITIVE_INFINITY;
    return figures;
  }
  const passStart = passEnd - passMs;
  const during = samples.filter((s) => s.start + s.ms >= passStart && s.start <= passEnd).map((s) => s.ms);
  const before = samples
    .filter((s) => s.start + s.ms < passStart && s.start > passDue - 10_000)
    .map((s) => s.ms);
  during.sort((a, b) => a - b);
  before.sort((a, b) => a - b);
  figures['housekeeping pass: seconds'] = passMs / 1000;
  // The same requests in the seconds before the pass, from the same run: the machine's own noise.
  figures['requests beside the pass: p50 ms'] = quantile(during, 0.5);
  figures['requests beside the pass: p99 ms'] = quantile(during, 0.99);
  figures['requests beside the pass: worst ms'] = during.at(-1) ?? Number.NaN;
  figures['requests beside the pass: count'] = during.length;
  figures['the same requests before the pass: p50 ms'] = quantile(before, 0.5);
  figures['the same requests before the pass: p99 ms'] = quantile(before, 0.99);
  figures['the same requests before the pass: worst ms'] = before.at(-1) ?? Number.NaN;
  figures['load average (1 min) as the pass ended'] = loadAtEnd;
  return figures;
}
