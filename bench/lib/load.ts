/** One autocannon run (the load generator lives in this process; the servers in their own). */
import autocannon from 'autocannon';

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  non2xx: number;
  errors: number;
}

export type LoadOptions = autocannon.Options;

export async function load(options: LoadOptions): Promise<LoadResult> {
  const result = await autocannon({ ...options, timeout: 30 });
  const out = {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
  if (out.non2xx || out.errors) {
    throw new Error(`${options.url}: ${out.non2xx} non-2xx answers and ${out.errors} errors under load`);
  }
  return out;
}
