/**
 * `npx tsx bench/tools-list-cost.ts [<dir> …]`: the two tools/list targets (CPU per request, both engines) for one or
 * more built checkouts (default: this one), measured turn about in one run: server CPU per tools/list
 * over the CPU per request of the bare Hono route (bench/baseline-server.ts) measured in the same round,
 * for each client era's request as captured on the wire (both send `accept-encoding: gzip, deflate`):
 * the 2026-07-28 client's (a JSON answer, gzipped), the same without accept-encoding, and the
 * 2025-06-18 client's (JSON, compressed as the client accepts); on SQLite and, unless
 * COST_POSTGRES=0, on PostgreSQL (a throw-away cluster from the test helpers), with PostgreSQL ÷ SQLite
 * per round. The floors: the bare route's server sending the same bytes and nothing else (its
 * /ceiling route: the legacy answer as sent, and the modern gzipped one). COST_ROUNDS (default 5) and
 * COST_SECONDS (default 3) set the effort. The figures `npm run bench` reports come from bench/run.ts;
 * this is the quicker loop for work on the /mcp request path.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { createDatabase, databaseUrl, startPostgresCluster } from '../tests/helpers/postgres-cluster.js';
import { type CapturedRequest, captureRequests, identityOnly } from './capture.js';
import { cpuPerRequest } from './lib/cpu.js';
import { load } from './lib/load.js';
import { ROOT } from './lib/proc.js';
import { median, round } from './lib/stats.js';
import { table } from './report.js';
import { type Gateway, startBaseline, startGateway, startSandbox } from './servers.js';
import { setupDatabase } from './setup.js';

const rounds = Number(process.env.COST_ROUNDS ?? 5);
const seconds = Number(process.env.COST_SECONDS ?? 3);
const withPostgres = process.env.COST_POSTGRES !== '0';
const log = (message: string) => process.stderr.write(`[cost] ${message}\n`);

interface Target {
  name: string;
  gateway: Gateway;
  accessToken: string;
}

async function main() {
  const dirs = process.argv.slice(2).map((d) => resolve(d));
  if (!dirs.length) dirs.push(ROOT);
  const work = mkdtempSync(join(tmpdir(), 'sim-cost-'));
  const cluster = withPostgres ? await startPostgresCluster() : null;
  const targets: Target[] = [];
  const stops: Array<() => Promise<void>> = [];
  try {
    const sandbox = await startSandbox();
    stops.push(() => sandbox.proc.stop());
    const res = await fetch(`${sandbox.searchUrl}/__sandbox/credentials`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ credits: 1_000_000, producer: true }),
    });
    const upstreamToken = ((await res.json()) as { token: string }).token;
    for (const [i, dir] of dirs.entries()) {
      const entry = join(dir, 'dist', 'src', 'main.js');
      const label = dirs.length > 1 ? `${dir.split('/').pop()} ` : '';
      const databasePath = join(work, `lite-${i}.db`);
      const lite = await setupDatabase(databasePath, [upstreamToken], 1);
      const liteGateway = await startGateway({ databasePath, sandbox, logDir: work, entry });
      stops.push(() => liteGateway.proc.stop());
      targets.push({
        name: `${label}SQLite`,
        gateway: liteGateway,
        accessToken: lite.grants[0]?.accessToken as string,
      });
      if (cluster) {
        await createDatabase(cluster.adminUrl, `cost${i}`);
        const url = databaseUrl(cluster.adminUrl, `cost${i}`);
        const unused = join(work, 'unused.db');
        const pg = await setupDatabase({ databasePath: unused, databaseUrl: url }, [upstreamToken], 1);
        const pgGateway = await startGateway({
          databasePath: unused,
          sandbox,
          logDir: work,
          entry,
          env: { DATABASE_URL: url },
        });
        stops.push(() => pgGateway.proc.stop());
        targets.push({
          name: `${label}PostgreSQL`,
          gateway: pgGateway,
          accessToken: pg.grants[0]?.accessToken as string,
        });
      }
    }
    const first = targets[0] as Target;
    const captured = await captureRequests(`${first.gateway.url}/mcp`, first.accessToken, 1);
    const requestFor = (target: Target, request: CapturedRequest): CapturedRequest => ({
      body: request.body,
      headers: { ...request.headers, authorization: `Bearer ${target.accessToken}` },
    });
    log(`tools/list headers as sent: ${JSON.stringify(captured.legacy.headers)}`);
    // The floors: the same listen() sending the gateway's own answer bytes, as they go on the wire.
    const answer = async (request: CapturedRequest, file: string) => {
      const res = await fetch(`${first.gateway.url}/mcp`, {
        method: 'POST',
        headers: requestFor(first, request).headers,
        body: request.body,
      });
      const bytes = Buffer.from(await res.arrayBuffer());
      const path = join(work, file);
      writeFileSync(path, bytes);
      return { bodyFile: path, contentType: res.headers.get('content-type') ?? 'application/json' };
    };
    const legacyFloor = await startBaseline(await answer(captured.legacy, 'legacy-answer'));
    stops.push(() => legacyFloor.proc.stop());
    const modernAnswer = await answer(identityOnly(captured.modern), 'modern-answer');
    writeFileSync(modernAnswer.bodyFile, gzipSync(readFileSync(modernAnswer.bodyFile), { level: 6 }));
    const modernFloor = await startBaseline(modernAnswer);
    stops.push(() => modernFloor.proc.stop());
    const baseline = legacyFloor;

    const samples = new Map<string, number[]>();
    const add = (name: string, value: number) => samples.set(name, [...(samples.get(name) ?? []), value]);
    const common = { connections: 16, duration: seconds };
    for (let r = 0; r <= rounds; r++) {
      log(`round ${r}${r === 0 ? ' (warm-up, not counted)' : ''}`);
      const keep = r > 0;
      const bare = await cpuPerRequest(baseline.proc.pid, () => load({ ...common, url: baseline.url }));
      const floor = (server: typeof baseline) =>
        cpuPerRequest(server.proc.pid, () =>
          load({ ...common, url: `${server.url}/ceiling`, method: 'POST', body: '{}' }),
        );
      const legacyBytes = await floor(legacyFloor);
      const modernBytes = await floor(modernFloor);
      if (keep) {
        add('bare route', bare.cpuUsPerRequest);
        add(
          'floor: the legacy answer (as sent) from a bare route ÷ bare',
          legacyBytes.cpuUsPerRequest / bare.cpuUsPerRequest,
        );
        add(
          'floor: the modern gzip answer from a bare route ÷ bare',
          modernBytes.cpuUsPerRequest / bare.cpuUsPerRequest,
        );
      }
      const order = r % 2 ? [...targets].reverse() : targets;
      for (const target of order) {
        const url = `${target.gateway.url}/mcp`;
        const pid = target.gateway.proc.pid;
        const run = (request: CapturedRequest) =>
          cpuPerRequest(pid, () => load({ ...common, url, method: 'POST', ...requestFor(target, request) }));
        const kinds = {
          'modern gzip': await run(captured.modern),
          'modern identity': await run(identityOnly(captured.modern)),
          legacy: await run(captured.legacy),
        };
        if (!keep) continue;
        for (const [kind, result] of Object.entries(kinds)) {
          add(`${target.name} ${kind}`, result.cpuUsPerRequest);
          add(`${target.name} ${kind} ÷ bare`, result.cpuUsPerRequest / bare.cpuUsPerRequest);
        }
      }
    }
    if (cluster) {
      for (const [i] of dirs.entries()) {
        const lite = targets[2 * i] as Target;
        const pg = targets[2 * i + 1] as Target;
        for (const kind of ['modern gzip', 'modern identity', 'legacy']) {
          const a = samples.get(`${pg.name} ${kind}`) ?? [];
          const b = samples.get(`${lite.name} ${kind}`) ?? [];
          for (const [j, x] of a.entries())
            add(`${pg.name.replace('PostgreSQL', '')}PostgreSQL ÷ SQLite, ${kind}`, x / (b[j] ?? Number.NaN));
        }
      }
    }
    // Later checkouts against the first, round by round (the machine drifts between rounds).
    const perDir = cluster ? 2 : 1;
    for (let i = 1; i < dirs.length; i++) {
      for (let k = 0; k < perDir; k++) {
        const base = targets[k] as Target;
        const other = targets[i * perDir + k] as Target;
        for (const kind of ['modern gzip', 'modern identity', 'legacy']) {
          const a = samples.get(`${other.name} ${kind}`) ?? [];
          const b = samples.get(`${base.name} ${kind}`) ?? [];
          for (const [j, x] of a.entries())
            add(`${other.name} ÷ ${base.name}, ${kind}`, x / (b[j] ?? Number.NaN));
        }
      }
    }
    const rows = [...samples].map(([figure, xs]) => ({
      figure,
      value: figure.includes('÷') ? `${round(median(xs), 2)}` : `${Math.round(median(xs))} µs`,
      target: `${round(Math.min(...xs), 2)}–${round(Math.max(...xs), 2)}`,
      met: null,
    }));
    process.stdout.write(`\n${table(rows)}\n\n${rounds} rounds of ${seconds} s; ${dirs.join(', ')}\n`);
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => {});
    cluster?.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(
      `[cost] failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  },
);
