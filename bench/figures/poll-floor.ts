/**
 * The floor under the waiting calls' CPU: what one upstream poll costs a process that does
 * nothing else — an HTTP GET of a keyword search record in the state the waiting figure polls (finished,
 * results lagging, preview posts present) through undici and a JSON.parse of its body — measured in a
 * child process of its own (bench/poll-floor-client.ts). The gateway's CPU per poll while calls wait is
 * reported over it, and the floor times the poll rate the backoff needs is the least CPU those polls
 * can cost on this machine.
 */
import { start } from '../lib/proc.js';
import type { Sandbox } from '../servers.js';

export interface PollFloorSample {
  cpuUsPerPoll: number;
  recordBytes: number;
}

export async function pollFloor(
  sandbox: Sandbox,
  upstreamToken: string,
  polls = 3_000,
): Promise<PollFloorSample> {
  const control = (method: string, path: string, body: unknown) =>
    fetch(`${sandbox.searchUrl}/__sandbox${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }).then((r) => r.json());
  const headers = {
    'X-SERVICE-TOKEN': upstreamToken,
    'X-SERVICE-USER-ID': 'bench-poll-floor',
    accept: 'application/json',
  };
  await control('PUT', '/faults', { token: upstreamToken, results_lag_ms: 600_000 });
  const created = await fetch(`${sandbox.searchUrl}/api/iq/keyword_search`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ query: 'bench poll floor', platforms: ['twitter'] }),
  });
  const { id } = (await created.json()) as { id: number };
  const url = `${sandbox.searchUrl}/api/iq/keyword_search/${id}`;
  const child = start(
    'node',
    ['--import', 'tsx', 'bench/poll-floor-client.ts', url, JSON.stringify(headers), String(polls)],
    {},
  );
  try {
    const line = await child.waitForLine(/^\{"cpuUsPerPoll"/, 120_000);
    const { cpuUsPerPoll, bytes } = JSON.parse(line) as { cpuUsPerPoll: number; bytes: number };
    return { cpuUsPerPoll, recordBytes: bytes };
  } finally {
    await child.stop();
    await fetch(`${sandbox.searchUrl}/__sandbox/faults?token=${upstreamToken}`, { method: 'DELETE' });
  }
}
