/**
 * `npx tsx bench/profile-proxy.ts`: the gateway under `node --cpu-prof` while a proxied GET
 * (get_keyword_search via /mcp) runs at 1 connection for PROFILE_SECONDS (default 10); prints the
 * functions with the most self time, grouped by package or source file. For finding per-request work,
 * not for figures (the profiler slows everything down). PROFILE_TARGET=tools-list profiles the 2025-06-18
 * client's tools/list as captured on the wire (gzip accepted) at 16 connections instead, tools-list-modern
 * the 2026-07-28 client's; a suffix -identity drops accept-encoding. Only samples taken while the load
 * runs are counted; PROFILE_TOP sets how many functions are listed; PROFILE_OUT=<file> keeps the raw profile.
 */
import { copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { captureRequests, identityOnly } from './capture.js';
import { summarizeProfile } from './lib/cpu-profile.js';
import { latency } from './lib/latency.js';
import { load } from './lib/load.js';
import { startGateway, startSandbox } from './servers.js';
import { setupDatabase } from './setup.js';

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
    process.stdout.write(
      summarizeProfile(
        work,
        r.requests,
        { places: 20, functions: Number(process.env.PROFILE_TOP ?? 25) },
        { from: loadStart + 100, to: loadEnd, stoppedAt: stopped },
      ),
    );
    const out = process.env.PROFILE_OUT;
    const file = readdirSync(work).find((f) => f.endsWith('.cpuprofile'));
    if (out && file) copyFileSync(join(work, file), out);
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
