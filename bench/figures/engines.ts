/**
 * The two database engines side by side: refresh grants per second and tools/list, with
 * the gateway's own CPU time per request, on the SQLite file, on PostgreSQL (a throw-away cluster on
 * loopback, from the test helpers), and on two gateways sharing that PostgreSQL database with the load
 * split between them. Interleaved rounds, medians; the comparisons are ratios within this run.
 * The cluster runs with the test settings (fsync off): commits cost less than on a durable server.
 */
import { join } from 'node:path';
import { createDatabase, databaseUrl, startPostgresCluster } from '../../tests/helpers/postgres-cluster.js';
import { load } from '../lib/load.js';
import { cpuMs, median, round } from '../lib/stats.js';
import type { Row } from '../report.js';
import { type Gateway, type Sandbox, startGateway } from '../servers.js';
import { setupDatabase } from '../setup.js';
import { TOKEN_CONNECTIONS, tokenRound } from './token.js';

const TOOLS_LIST = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });

interface Setup {
  name: string;
  gateways: Gateway[];
  clientId: string;
  accessToken: string;
  /** Per gateway, the refresh tokens its rotation chains start from (tokenRound takes them). */
  refreshPools: string[][];
}

interface Sample {
  refreshRps: number;
  toolsListRps: number;
  /** Gateway CPU (user + system, all its processes' share) per tools/list request, in µs. */
  toolsListCpuUs: number;
}

/** tools/list with a 2025-06-18 bearer request, split over the gateways; CPU read from /proc. */
async function toolsList(setup: Setup, seconds: number): Promise<{ rps: number; cpuUs: number }> {
  const before = setup.gateways.map((g) => cpuMs(g.proc.pid));
  const results = await Promise.all(
    setup.gateways.map((g) =>
      load({
        url: `${g.url}/mcp`,
        connections: Math.ceil(16 / setup.gateways.length),
        duration: seconds,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${setup.accessToken}`,
          'mcp-protocol-version': '2025-06-18',
        },
        body: TOOLS_LIST,
      }),
    ),
  );
  const cpu = setup.gateways.reduce((sum, g, i) => sum + cpuMs(g.proc.pid) - (before[i] ?? 0), 0);
  const requests = results.reduce((n, r) => n + r.requests, 0);
  return { rps: results.reduce((n, r) => n + r.rps, 0), cpuUs: (cpu * 1000) / requests };
}

async function refresh(setup: Setup, seconds: number): Promise<number> {
  // Each gateway runs its own chains at the same time.
  const results = await Promise.all(
    setup.gateways.map((g, i) =>
      tokenRound(g.url, setup.clientId, setup.refreshPools[i] as string[], seconds, g.proc.pid),
    ),
  );
  return results.reduce((n, r) => n + r.rps, 0);
}

export async function engineFigures(options: {
  sandbox: Sandbox;
  upstreamToken: string;
  work: string;
  rounds: number;
  seconds: number;
  log: (message: string) => void;
}): Promise<Row[]> {
  const { sandbox, work, rounds, seconds, log } = options;
  // Room for reconnections: autocannon sets a connection up again (a new chain) after an error.
  const pool = TOKEN_CONNECTIONS * (rounds + 1) * 3;
  const cluster = await startPostgresCluster();
  const setups: Setup[] = [];
  try {
    await createDatabase(cluster.adminUrl, 'bench');
    const url = databaseUrl(cluster.adminUrl, 'bench');
    const sqlitePath = join(work, 'engines.db');
    const lite = await setupDatabase(sqlitePath, [options.upstreamToken], pool);
    const pg = await setupDatabase(
      { databasePath: join(work, 'unused.db'), databaseUrl: url },
      [options.upstreamToken],
      pool * 3,
    );
    const start = (env: Record<string, string>, databasePath: string) =>
      startGateway({ databasePath, sandbox, logDir: work, env });
    setups.push({
      name: 'SQLite',
      gateways: [await start({}, sqlitePath)],
      clientId: lite.clientId,
      accessToken: lite.grants[0]?.accessToken as string,
      refreshPools: [lite.refreshPool],
    });
    const pgGateway = await start({ DATABASE_URL: url }, join(work, 'unused.db'));
    setups.push({
      name: 'PostgreSQL',
      gateways: [pgGateway],
      clientId: pg.clientId,
      accessToken: pg.grants[0]?.accessToken as string,
      refreshPools: [pg.refreshPool.slice(0, pool)],
    });
    setups.push({
      name: 'PostgreSQL, two gateways',
      gateways: [pgGateway, await start({ DATABASE_URL: url }, join(work, 'unused.db'))],
      clientId: pg.clientId,
      accessToken: pg.grants[0]?.accessToken as string,
      refreshPools: [pg.refreshPool.slice(pool, 2 * pool), pg.refreshPool.slice(2 * pool)],
    });

    const samples = new Map<string, Sample[]>(setups.map((s) => [s.name, []]));
    for (let r = 0; r <= rounds; r++) {
      log(`engines round ${r}${r === 0 ? ' (warm-up)' : ''}`);
      for (const setup of setups) {
        const time = r === 0 ? 1 : seconds;
        const refreshRps = await refresh(setup, time);
        const list = await toolsList(setup, time);
        if (r > 0)
          samples.get(setup.name)?.push({ refreshRps, toolsListRps: list.rps, toolsListCpuUs: list.cpuUs });
      }
    }
    const m = (name: string, key: keyof Sample) => median((samples.get(name) ?? []).map((s) => s[key]));
    const rows: Row[] = [];
    for (const setup of setups) {
      rows.push({
        figure: `${setup.name}: refresh grants`,
        value: `${Math.round(m(setup.name, 'refreshRps'))} /s`,
        target: setup.name === 'PostgreSQL' ? '≥ 1,000 /s' : '(reference)',
        met: setup.name === 'PostgreSQL' ? m(setup.name, 'refreshRps') >= 1_000 : null,
      });
      rows.push({
        figure: `${setup.name}: tools/list (2025-06-18), server CPU per request`,
        value: `${Math.round(m(setup.name, 'toolsListRps'))} req/s, ${round(m(setup.name, 'toolsListCpuUs'), 0)} µs`,
        target: '(reference)',
        met: null,
      });
    }
    const cpuRatio = m('PostgreSQL', 'toolsListCpuUs') / m('SQLite', 'toolsListCpuUs');
    rows.push({
      figure: 'tools/list server CPU per request: PostgreSQL ÷ SQLite',
      value: round(cpuRatio).toString(),
      target: '≤ 1.2',
      met: cpuRatio <= 1.2,
    });
    const twoRatio = m('PostgreSQL, two gateways', 'refreshRps') / m('PostgreSQL', 'refreshRps');
    rows.push({
      figure: 'refresh grants: two gateways ÷ one (PostgreSQL)',
      value: round(twoRatio).toString(),
      target: '(reference: 2 cores shared with the load generator)',
      met: null,
    });
    return rows;
  } finally {
    const gateways = new Set(setups.flatMap((s) => s.gateways));
    for (const g of gateways) await g.proc.stop();
    cluster.stop();
  }
}
