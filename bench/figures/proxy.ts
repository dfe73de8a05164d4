/**
 * Proxy overhead: latency of get_keyword_search through /mcp minus the same upstream GET made
 * directly to the sandbox, measured back to back at the same connection count (with the
 * microsecond-resolution probe in lib/latency.ts).
 */
import type { CapturedRequest } from '../capture.js';
import { cpuPerRequest } from '../lib/cpu.js';
import { latency } from '../lib/latency.js';

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
