/**
 * Proxy overhead: latency of get_keyword_search through /mcp minus the same upstream GET made
 * directly to the sandbox, measured back to back at the same connection count (with the
 * microsecond-resolution probe in lib/latency.ts).
 */
import type { CapturedRequest } from '../capture.js';
import { cpuPerRequest } from '../lib/cpu.js';
import { latency, pairedLatency } from '../lib/latency.js';
import { load } from '../lib/load.js';

export interface ProxySample {
  connections: number;
  direct: { p50: number; p99: number; rps: number };
  viaMcp: { p50: number; p99: number; rps: number };
  /** The gateway's CPU per proxied call, µs. */
  cpuUs: number;
}

export async function proxyRound(
  target: { searchUrl: string; upstreamToken: string; searchId: number },
  mcpUrl: string,
  toolsCall: CapturedRequest,
  connections: number,
  seconds: number,
  gatewayPid: number,
): Promise<ProxySample> {
  const direct = await latency({
    url: `${target.searchUrl}/api/iq/keyword_search/${target.searchId}`,
    connections,
    seconds,
    headers: { 'X-SERVICE-TOKEN': target.upstreamToken, 'X-SERVICE-USER-ID': 'bench-user-0' },
  });
  const viaMcp = await cpuPerRequest(gatewayPid, () =>
    latency({ url: mcpUrl, method: 'POST', connections, seconds, ...toolsCall }),
  );
  const pick = (r: { p50: number; p99: number; rps: number }) => ({ p50: r.p50, p99: r.p99, rps: r.rps });
  return { connections, direct: pick(direct), viaMcp: pick(viaMcp), cpuUs: viaMcp.cpuUsPerRequest };
}

export interface FloorSample {
  /** Server CPU per request, µs, of the baseline process: the bare route at 16 and at 1 connection. */
  bareUs: { c16: number; c1: number };
  /** The floor route (one upstream GET passed through with undici) at 1 connection: CPU µs, latency. */
  floor: { cpuUs: number; p50: number; p99: number };
  /** The same upstream GET made directly, 1 connection, ms. */
  direct: { p50: number; p99: number };
}

/**
 * The reference figures for a proxied call: bench/baseline-server.ts's bare route (as the tools/list
 * figure loads it, 16 connections, and at 1 connection) and its floor route, the same upstream GET a
 * proxied get_keyword_search makes, through undici, its body answered untouched.
 */
export async function floorRound(
  baseline: { url: string; pid: number },
  direct: { url: string; headers: Record<string, string> },
  toolsCall: CapturedRequest,
  seconds: number,
): Promise<FloorSample> {
  const straight = await latency({ ...direct, connections: 1, seconds });
  const c16 = await cpuPerRequest(baseline.pid, () =>
    load({ url: baseline.url, connections: 16, duration: seconds }),
  );
  const c1 = await cpuPerRequest(baseline.pid, () => latency({ url: baseline.url, connections: 1, seconds }));
  const floor = await cpuPerRequest(baseline.pid, () =>
    latency({ url: `${baseline.url}/floor`, method: 'POST', connections: 1, seconds, ...toolsCall }),
  );
  return {
    bareUs: { c16: c16.cpuUsPerRequest, c1: c1.cpuUsPerRequest },
    floor: { cpuUs: floor.cpuUsPerRequest, p50: floor.p50, p99: floor.p99 },
    direct: { p50: straight.p50, p99: straight.p99 },
  };
}

export interface PairedSample {
  /** The proxied call through /mcp and the floor route, turn about on one connection each, ms. */
  viaMcp: { p50: number; p99: number };
  floor: { p50: number; p99: number };
  /** The gateway's CPU per proxied call in that run, µs. */
  cpuUs: number;
}

/**
 * The proxied call and its floor measured turn about (lib/latency.ts:pairedLatency): a call through
 * /mcp, then the same call to the floor route, and so on. Measured apart, each side runs a closed loop
 * of its own: the floor's loop hits the sandbox every 0.7 ms or so and finds it warm, the gateway's
 * every 2 ms or more, and the machine's speed moves between the two runs; taken turn about, both
 * sides meet the same sandbox and the same machine, so their difference is the gateway's own cost.
 */
export async function pairedRound(
  mcpUrl: string,
  floorUrl: string,
  toolsCall: CapturedRequest,
  seconds: number,
  gatewayPid: number,
): Promise<PairedSample> {
  const gateway = { url: mcpUrl, method: 'POST', ...toolsCall };
  const floor = { url: floorUrl, method: 'POST', ...toolsCall };
  const run = await cpuPerRequest(gatewayPid, async () => {
    const both = await pairedLatency({ a: gateway, b: floor, seconds });
    return { ...both, requests: both.a.requests };
  });
  const pick = (r: { p50: number; p99: number }) => ({ p50: r.p50, p99: r.p99 });
  return { viaMcp: pick(run.a), floor: pick(run.b), cpuUs: run.cpuUsPerRequest };
}
