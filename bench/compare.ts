/**
 * `npx tsx bench/compare.ts <before-dir> [<after-dir>]`: the same hot-path figures for two built
 * gateways, measured in one run, turn about, on one sandbox: each gateway's server CPU per request for
 * tools/list (as the v1 client sends it, with and without compression), for a proxied GET
 * (get_keyword_search through /mcp, one connection) and for a refresh grant, with the latency of the
 * proxied GET over the same GET made directly. `<before-dir>` is a checkout of an earlier commit with
 * `npm run build` done in it (a git worktree does); `<after-dir>` defaults to this checkout.
 *
 * The machine is shared and its speed drifts by tens of percent over minutes, so figures of two builds
 * measured minutes apart cannot be compared; here every round measures both, alternating which goes
 * first, and the table gives medians over rounds and the after ÷ before ratio of each round's pair.
 * COMPARE_ROUNDS (default 5) and COMPARE_SECONDS (default 3) set the effort; COMPARE_ONLY (below)
 * measures fewer figures, so more rounds fit in the same minutes.
 *
 * COMPARE_DATABASE=postgres runs both gateways on a throw-away PostgreSQL cluster on loopback (the
 * test settings: fsync off), each on its own copy of one database, and adds per request what the
 * cluster spent: its CPU (all its processes, from /proc; the other gateway is idle meanwhile) and the
 * round trips the gateway made to its database (statements, BEGIN and COMMIT included) and the
 * transactions among them (pg_stat_statements).
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createDatabase, databaseUrl, startPostgresCluster } from '../tests/helpers/postgres-cluster.js';
import { type CapturedRequests, captureRequests, identityOnly } from './capture.js';
import { type FloorSample, floorRound } from './figures/proxy.js';
import { TOKEN_CONNECTIONS, tokenRound } from './figures/token.js';
import { cpuPerRequest } from './lib/cpu.js';
import { latency } from './lib/latency.js';
import { load } from './lib/load.js';
import { type ClusterWatch, STATEMENT_SETTINGS, watchCluster } from './lib/postgres-watch.js';
import { ROOT } from './lib/proc.js';
import { median, round } from './lib/stats.js';
import { table } from './report.js';
import { type Gateway, type Sandbox, startBaseline, startGateway, startSandbox } from './servers.js';
import { type BenchData, setupDatabase } from './setup.js';

const rounds = Number(process.env.COMPARE_ROUNDS ?? 5);
const seconds = Number(process.env.COMPARE_SECONDS ?? 3);
const onPostgres = process.env.COMPARE_DATABASE === 'postgres';
/** COMPARE_ONLY=refresh (or tools-list, proxy; comma-separated): only those figures, more rounds per minute. */
const only = process.env.COMPARE_ONLY?.split(',').map((s) => s.trim());
const wanted = (figure: 'tools-list' | 'proxy' | 'refresh') => !only || only.includes(figure);
const log = (message: string) => process.stderr.write(`[compare] ${message}\n`);
/**
 * COMPARE_NODE_ARGS_BEFORE / COMPARE_NODE_ARGS_AFTER (space-separated): node options for one side only,
 * so a runtime setting (a V8 flag) is compared against none on the same build.
 */
const nodeArgsOf = (side: string) =>
  (process.env[`COMPARE_NODE_ARGS_${side.toUpperCase()}`] ?? '').split(' ').filter(Boolean);

interface Side {
  name: string;
  gateway: Gateway;
  /** The side's PostgreSQL database, with the watch on its cluster (COMPARE_DATABASE=postgres). */
  postgres?: { database: string; watch: ClusterWatch };
  data: BenchData;
  samples: Map<string, number[]>;
}

async function makeSearch(gatewayUrl: string, accessToken: string): Promise<number> {
  const res = await fetch(`${gatewayUrl}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${accessToken}`,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'submit_keyword_search', arguments: { query: 'heat pumps', platforms: ['twitter'] } },
    }),
  });
  const id = /"search_id":\s*(\d+)/.exec(await res.text())?.[1];
  if (!id) throw new Error(`could not create the bench search on ${gatewayUrl}`);
  return Number(id);
}

async function measure(side: Side, sandbox: Sandbox, upstreamToken: string, requests: CapturedRequests) {
  const pid = side.gateway.proc.pid;
  const mcpUrl = `${side.gateway.url}/mcp`;
  const add = (name: string, value: number) => {
    const list = side.samples.get(name) ?? [];
    list.push(value);
    side.samples.set(name, list);
  };
  /** Runs `run` and adds what the cluster spent on its requests, on PostgreSQL. */
  const onCluster = async <T extends { requests: number }>(figure: string, run: () => Promise<T>) => {
    if (!side.postgres) return run();
    const { database, watch } = side.postgres;
    const before = await watch.read(database);
    const result = await run();
    const after = await watch.read(database);
    const per = (key: 'cpuMs' | 'roundTrips' | 'transactions') =>
      (after[key] - before[key]) / result.requests;
    add(`${figure}: PostgreSQL CPU µs/request`, per('cpuMs') * 1000);
    add(`${figure}: round trips to PostgreSQL/request`, per('roundTrips'));
    add(`${figure}: transactions/request`, per('transactions'));
    return result;
  };
  const common = { connections: 16, duration: seconds, url: mcpUrl, method: 'POST' as const };
  if (wanted('tools-list')) {
    const compressed = await onCluster('tools/list, gzip', () =>
      cpuPerRequest(pid, () => load({ ...common, ...requests.legacy })),
    );
    add('tools/list, client accepts gzip: CPU µs/request', compressed.cpuUsPerRequest);
    const identity = await cpuPerRequest(pid, () => load({ ...common, ...identityOnly(requests.legacy) }));
    add('tools/list, identity: CPU µs/request', identity.cpuUsPerRequest);
  }
  if (wanted('proxy')) await measureProxied(side, sandbox, upstreamToken, requests, add, onCluster);
  if (wanted('refresh')) {
    const generator = process.cpuUsage();
    const token = await onCluster('refresh grant', () =>
      tokenRound(side.gateway.url, side.data.clientId, side.data.refreshPool, seconds, pid),
    );
    const used = process.cpuUsage(generator);
    add('refresh grant: CPU µs/request', token.cpuUs);
    // The rate on 2 shared cores is set by everyone's CPU per refresh: the load generator's too.
    add('refresh grant: load generator CPU µs/request', (used.user + used.system) / token.requests);
    add('refresh grants /s (16 chains)', token.rps);
  }
}

async function measureProxied(
  side: Side,
  sandbox: Sandbox,
  upstreamToken: string,
  requests: CapturedRequests,
  add: (name: string, value: number) => void,
  onCluster: <T extends { requests: number }>(figure: string, run: () => Promise<T>) => Promise<T>,
) {
  const pid = side.gateway.proc.pid;
  const mcpUrl = `${side.gateway.url}/mcp`;
  const searchId = Number(/"search_id":\s*(\d+)/.exec(requests.toolsCall.body)?.[1] ?? Number.NaN);
  const direct = await latency({
    url: `${sandbox.searchUrl}/api/iq/keyword_search/${searchId}`,
    connections: 1,
    seconds,
    headers: { 'X-SERVICE-TOKEN': upstreamToken, 'X-SERVICE-USER-ID': 'bench-user-0' },
  });
  const proxied = await onCluster('proxied GET', () =>
    cpuPerRequest(pid, () =>
      latency({ url: mcpUrl, method: 'POST', connections: 1, seconds, ...requests.toolsCall }),
    ),
  );
  add('proxied GET: CPU µs/request', proxied.cpuUsPerRequest);
  add('proxied GET: p50 over direct, ms', proxied.p50 - direct.p50);
  add('proxied GET: p99 over direct, ms', proxied.p99 - direct.p99);
}

async function main() {
  const beforeDir = process.argv[2];
  if (!beforeDir) throw new Error('usage: tsx bench/compare.ts <before-dir> [<after-dir>]');
  const dirs = { before: resolve(beforeDir), after: resolve(process.argv[3] ?? ROOT) };
  const work = mkdtempSync(join(tmpdir(), 'sim-compare-'));
  let stopCluster: (() => void) | undefined;
  let closeWatch: (() => Promise<void>) | undefined;
  try {
    const sandbox = await startSandbox();
    const res = await fetch(`${sandbox.searchUrl}/__sandbox/credentials`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ credits: 1_000_000, producer: true }),
    });
    const upstreamToken = ((await res.json()) as { token: string }).token;
    const pool = TOKEN_CONNECTIONS * (rounds + 1) + 4;
    const cluster = onPostgres ? await startPostgresCluster(STATEMENT_SETTINGS) : null;
    stopCluster = cluster?.stop;
    const watch = cluster ? await watchCluster(cluster.adminUrl) : undefined;
    closeWatch = watch?.close;
    // One database, set up once and copied: both gateways hold the same grants and refresh chains.
    const location = (name: string) => ({
      databasePath: join(work, `${name}.db`),
      ...(cluster ? { databaseUrl: databaseUrl(cluster.adminUrl, name) } : {}),
    });
    if (cluster) await createDatabase(cluster.adminUrl, 'after');
    const data = await setupDatabase(location('after'), [upstreamToken], pool);
    const grant = data.grants[0];
    if (!grant) throw new Error('no grant');
    if (cluster) await createDatabase(cluster.adminUrl, 'before', 'after');
    else copyFileSync(location('after').databasePath, location('before').databasePath);
    const sides: Side[] = [];
    for (const [name, dir] of Object.entries(dirs)) {
      const where = location(name);
      const gateway = await startGateway({
        databasePath: where.databasePath,
        sandbox,
        logDir: work,
        entry: join(dir, 'dist', 'src', 'main.js'),
        nodeArgs: nodeArgsOf(name),
        env: where.databaseUrl ? { DATABASE_URL: where.databaseUrl } : {},
      });
      sides.push({
        name,
        gateway,
        ...(watch ? { postgres: { database: name, watch } } : {}),
        data: { ...data, refreshPool: [...data.refreshPool] },
        samples: new Map(),
      });
    }
    const after = sides[1] as Side;
    const searchId = await makeSearch(after.gateway.url, grant.accessToken);
    const captured = await captureRequests(`${after.gateway.url}/mcp`, grant.accessToken, searchId);
    log(`tools/list headers as sent: ${JSON.stringify(captured.legacy.headers)}`);
    const before = sides[0] as Side;
    // A listing's CPU follows its size: say how large each side's answer is, so a ratio can be read.
    if (wanted('tools-list'))
      for (const side of sides) {
        const plain = identityOnly(captured.legacy);
        const res = await fetch(`${side.gateway.url}/mcp`, {
          method: 'POST',
          headers: plain.headers,
          body: plain.body,
        });
        log(`${side.name}: tools/list answer ${(await res.arrayBuffer()).byteLength} B (identity)`);
      }
    // The reference: a bare route, and the floor (the same upstream GET passed through with undici).
    const upstreamGet = {
      url: `${sandbox.searchUrl}/api/iq/keyword_search/${searchId}`,
      headers: { 'X-SERVICE-TOKEN': upstreamToken, 'X-SERVICE-USER-ID': 'bench-user-0' },
    };
    const baseline = await startBaseline(undefined, upstreamGet);
    const floors: FloorSample[] = [];

    for (let r = 0; r <= rounds; r++) {
      log(`round ${r}${r === 0 ? ' (warm-up, not counted)' : ''}`);
      if (wanted('proxy')) {
        const floor = await floorRound(
          { url: baseline.url, pid: baseline.proc.pid },
          upstreamGet,
          captured.toolsCall,
          seconds,
        );
        if (r > 0) floors.push(floor);
      }
      const order = r % 2 ? [after, before] : [before, after];
      for (const side of order) {
        const probe: Side = r === 0 ? { ...side, samples: new Map() } : side;
        await measure(probe, sandbox, upstreamToken, captured);
      }
    }
    for (const side of sides) await side.gateway.proc.stop();
    await baseline.proc.stop();
    await sandbox.proc.stop();
    // Ratios within a round: each side's proxied GET over that round's bare route and floor.
    for (const side of floors.length ? sides : []) {
      const cpu = side.samples.get('proxied GET: CPU µs/request') ?? [];
      const each = (f: (s: FloorSample) => number) => cpu.map((x, i) => x / f(floors[i] as FloorSample));
      side.samples.set(
        'proxied GET ÷ bare route (16 connections), CPU',
        each((s) => s.bareUs.c16),
      );
      side.samples.set(
        'proxied GET ÷ floor (undici GET passed through), CPU',
        each((s) => s.floor.cpuUs),
      );
    }

    const rows = [...before.samples.keys()].map((figure) => {
      const b = before.samples.get(figure) ?? [];
      const a = after.samples.get(figure) ?? [];
      const ratios = a.map((x, i) => x / (b[i] ?? Number.NaN));
      return {
        figure,
        before: String(round(median(b), 2)),
        after: String(round(median(a), 2)),
        ratio: `${round(median(ratios), 2)} (${round(Math.min(...ratios), 2)}–${round(Math.max(...ratios), 2)})`,
      };
    });
    const shown = rows.map((r) => ({
      figure: r.figure,
      before: r.before,
      value: r.after,
      target: `after ÷ before: ${r.ratio}`,
      met: null,
    }));
    const reference = [
      ['bare route, 16 connections: CPU µs/request', floors.map((f) => f.bareUs.c16)],
      ['bare route, 1 connection: CPU µs/request', floors.map((f) => f.bareUs.c1)],
      ['floor, 1 connection: CPU µs/request', floors.map((f) => f.floor.cpuUs)],
      ['floor ÷ bare route (16 connections)', floors.map((f) => f.floor.cpuUs / f.bareUs.c16)],
      ['floor ÷ bare route (1 connection)', floors.map((f) => f.floor.cpuUs / f.bareUs.c1)],
      ['floor p50 over direct, ms', floors.map((f) => f.floor.p50 - f.direct.p50)],
      ['floor p99 over direct, ms', floors.map((f) => f.floor.p99 - f.direct.p99)],
    ] as const;
    const referenceRows = reference.map(([figure, values]) => ({
      figure,
      value: `${round(median([...values]), 2)} (${round(Math.min(...values), 2)}–${round(Math.max(...values), 2)})`,
      target: '(reference)',
      met: null,
    }));
    process.stdout.write(
      `\n${table(shown)}\n${floors.length ? `\n${table(referenceRows)}\n` : ''}` +
        `\nbefore: ${dirs.before}\nafter:  ${dirs.after}\n${rounds} rounds of ${seconds} s` +
        ` on ${onPostgres ? 'PostgreSQL' : 'SQLite'}\n`,
    );
  } finally {
    await closeWatch?.();
    stopCluster?.();
    rmSync(work, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(
      `[compare] failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  },
);
