/**
 * Server CPU per request: the CPU time (user + system, /proc/<pid>/stat) a server process used during
 * a load run, divided by the requests it answered. The load generator runs in the bench's own process,
 * so this counts the server's work only, whatever the load generator costs.
 */
import { cpuMs } from './stats.js';

export async function cpuPerRequest<T extends { requests: number }>(
  pid: number,
  run: () => Promise<T>,
): Promise<T & { cpuUsPerRequest: number }> {
  const before = cpuMs(pid);
  const result = await run();
  const used = cpuMs(pid) - before;
  return { ...result, cpuUsPerRequest: result.requests ? (used * 1000) / result.requests : Number.NaN };
}
