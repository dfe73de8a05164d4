/**
 * `npx tsx bench/profile-proxy.ts`: the gateway under `node --cpu-prof` while a proxied GET
 * (get_keyword_search via /mcp) runs at 1 connection for PROFILE_SECONDS (default 10); prints the
 * functions with the most self time, grouped by package or source file. For finding per-request work,
 * not for figures (the profiler slows everything down). PROFILE_TARGET=tools-list profiles the 2025-06-18
 * client's tools/list as captured on the wire (gzip accepted) at 16 connections instead, tools-list-modern
 * the 2026-07-28 client's; a suffix -identity drops accept-encoding. Only samples taken while the load
 * runs are counted; PROFILE_TOP sets how many functions are listed.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { captureRequests, identityOnly } from './capture.js';
import { latency } from './lib/latency.js';
import { load } from './lib/load.js';
import { startGateway, startSandbox } from './servers.js';
import { setupDatabase } from './setup.js';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

/** Where a frame's code lives: a package name, a file of ours, or the runtime. */
function place(url: string): string {
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1] as string;
  if (url.includes('/dist/src/')) return url.slice(url.indexOf('/dist/src/') + 6);
  return url.startsWith('node:') ? url : url === '' ? '(native / GC)' : url;
}

async function main() {
  const work = mkdtempSync(join(tmpdir(), 'sim-prof-'));
  try {
    const sandbox = await startSandbox();
    const res = await fetch(`${sandbox.searchUrl}/__sandbox/credentials`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ credits: 1_000, producer: true }),
    });
    const upstream = ((await res.json()) as { token: string }).token;
    const data = await setupDatabase(join(work, 'bench.db'), [upstream], 1);
    const grant = data.grants[0];
    if (!grant) throw new Error('no grant');
    const gateway = await startGateway({
      databasePath: join(work, 'bench.db'),
      sandbox,
      logDir: work,
      nodeArgs: ['--cpu-prof', '--cpu-prof-dir', work],
    });
    const call = await fetch(`${gateway.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${grant.accessToken}`,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'submit_keyword_search', arguments: { query: 'heat pumps', platforms: ['twitter'] } },
      }),
    });
    const searchId = Number(/"search_id":\s*(\d+)/.exec(await call.text())?.[1]);
    const requests = await captureRequests(`${gateway.url}/mcp`, grant.accessToken, searchId);
    const seconds = Number(process.env.PROFILE_SECONDS ?? 10);
    const target = process.env.PROFILE_TARGET ?? 'proxy';
    const listRequest = target.startsWith('tools-list-modern') ? requests.modern : requests.legacy;
    const url = `${gateway.url}/mcp`;
    const loadStart = Date.now();
    const r =
      target === 'proxy'
        ? await latency({ url, method: 'POST', connections: 1, seconds, ...requests.toolsCall })
        : await load({
            url,
            method: 'POST',
            connections: 16,
            duration: seconds,
            ...(target.endsWith('-identity') ? identityOnly(listRequest) : listRequest),
          });
    process.stdout.write(`${r.requests} requests (${target}), p50 ${r.p50.toFixed(2)} ms (profiled)\n`);
    const loadEnd = Date.now();
    await gateway.proc.stop(10_000);
    const stopped = Date.now();
    await sandbox.proc.stop();
    const file = readdirSync(work).find((f) => f.endsWith('.cpuprofile'));
    if (!file) throw new Error('no profile written');
    const profile = JSON.parse(readFileSync(join(work, file), 'utf8')) as Profile;
    const self = new Map<number, number>();
    // Only the samples taken while the load ran (start-up and shutdown are not per-request work):
    // the profile's clock is monotonic, so its end is placed at the stop, give or take the exit.
    const wallOf = (t: number) => stopped - (profile.endTime - t) / 1000;
    let at = profile.startTime;
    for (const [i, id] of profile.samples.entries()) {
      at += profile.timeDeltas[i] ?? 0;
      const wall = wallOf(at);
      if (wall < loadStart + 100 || wall > loadEnd) continue;
      self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
    }
    const byPlace = new Map<string, number>();
    const byFn = new Map<string, number>();
    let total = 0;
    for (const node of profile.nodes) {
      const t = self.get(node.id) ?? 0;
      if (node.callFrame.functionName === '(idle)') continue;
      total += t;
      const where = place(node.callFrame.url);
      byPlace.set(where, (byPlace.get(where) ?? 0) + t);
      const fn = `${node.callFrame.functionName || '(anonymous)'} ${where}:${node.callFrame.lineNumber + 1}`;
      byFn.set(fn, (byFn.get(fn) ?? 0) + t);
    }
    const top = (m: Map<string, number>, n: number) =>
      [...m]
        .sort((a, b) => b[1] - a[1])
        .slice(0, n)
        .map(
          ([k, t]) =>
            `${((t / total) * 100).toFixed(1).padStart(5)} %  ${(t / r.requests).toFixed(0).padStart(5)} µs/req  ${k}`,
        )
        .join('\n');
    process.stdout.write(
      `busy ${(total / r.requests).toFixed(0)} µs per request\n\nby place:\n${top(byPlace, 20)}\n\nby function:\n${top(byFn, Number(process.env.PROFILE_TOP ?? 25))}\n`,
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
