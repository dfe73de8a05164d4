/**
 * tools/list request rate through /mcp with a valid bearer, as each client era sends it, against a
 * bare Hono route on the same server settings (the baseline), one run each in the same round. The
 * ceiling is the same server settings sending the gateway's own tools/list answer and doing nothing
 * else: the baseline answers 40 bytes, tools/list about 49 KB, and writing those bytes has a cost no
 * gateway can avoid.
 */
import { type CapturedRequest, identityOnly } from '../capture.js';
import { cpuPerRequest } from '../lib/cpu.js';
import { load } from '../lib/load.js';

export const TOOLS_LIST_CONNECTIONS = 16;

export interface ThroughputSample {
  baseline: number;
  ceiling: number;
  modern: number;
  legacy: number;
  /** Server CPU per request, µs: the baseline process for the bare route, the gateway for tools/list. */
  cpuUs: { baseline: number; modern: number; legacy: number; legacyIdentity: number };
}

export async function toolsListRound(
  baselineUrl: string,
  mcpUrl: string,
  requests: { modern: CapturedRequest; legacy: CapturedRequest },
  seconds: number,
  pids: { baseline: number; gateway: number },
): Promise<ThroughputSample> {
  const common = { connections: TOOLS_LIST_CONNECTIONS, duration: seconds };
  const baseline = await cpuPerRequest(pids.baseline, () => load({ ...common, url: baselineUrl }));
  const ceiling = await load({ ...common, url: `${baselineUrl}/ceiling`, method: 'POST', body: '{}' });
  const modern = await cpuPerRequest(pids.gateway, () =>
    load({ ...common, url: mcpUrl, method: 'POST', ...requests.modern }),
  );
  const legacy = await cpuPerRequest(pids.gateway, () =>
    load({ ...common, url: mcpUrl, method: 'POST', ...requests.legacy }),
  );
  // A client that takes no compression: the whole answer is written (a reference, no target).
  const legacyIdentity = await cpuPerRequest(pids.gateway, () =>
    load({ ...common, url: mcpUrl, method: 'POST', ...identityOnly(requests.legacy) }),
  );
  return {
    baseline: baseline.rps,
    ceiling: ceiling.rps,
    modern: modern.rps,
    legacy: legacy.rps,
    cpuUs: {
      baseline: baseline.cpuUsPerRequest,
      modern: modern.cpuUsPerRequest,
      legacy: legacy.cpuUsPerRequest,
      legacyIdentity: legacyIdentity.cpuUsPerRequest,
    },
  };
}
