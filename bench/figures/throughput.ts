/**
 * tools/list request rate through /mcp with a valid bearer, as each client era sends it, against a
 * bare Hono route on the same server settings (the baseline), one run each in the same round. The
 * ceiling is the same server settings sending the gateway's own tools/list answer and doing nothing
 * else: the baseline answers 40 bytes, tools/list about 49 KB, and writing those bytes has a cost no
 * gateway can avoid.
 */
import type { CapturedRequest } from '../capture.js';
import { load } from '../lib/load.js';

export const TOOLS_LIST_CONNECTIONS = 16;

export interface ThroughputSample {
  baseline: number;
  ceiling: number;
  modern: number;
  legacy: number;
}

export async function toolsListRound(
  baselineUrl: string,
  mcpUrl: string,
  requests: { modern: CapturedRequest; legacy: CapturedRequest },
  seconds: number,
): Promise<ThroughputSample> {
  const common = { connections: TOOLS_LIST_CONNECTIONS, duration: seconds };
  const baseline = await load({ ...common, url: baselineUrl });
  const ceiling = await load({ ...common, url: `${baselineUrl}/ceiling`, method: 'POST', body: '{}' });
  const modern = await load({ ...common, url: mcpUrl, method: 'POST', ...requests.modern });
  const legacy = await load({ ...common, url: mcpUrl, method: 'POST', ...requests.legacy });
  return { baseline: baseline.rps, ceiling: ceiling.rps, modern: modern.rps, legacy: legacy.rps };
}
