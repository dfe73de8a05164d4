/**
 * `npm run bench:large`: the gateway on a database shaped like a year of a busy deployment
 * (bench/large/shape.ts: 100,000 people, 10,000 teams, 50,000 clients, 1,000,000 grants with 2.2
 * million tokens, 5,000,000 audit events, one team with about 500,000), against the same shape at a
 * thousandth of it (the small database), on SQLite and on PostgreSQL. Every figure is reported for
 * both and as large ÷ small.
 *
 * BENCH_LARGE_ENGINES (sqlite,postgres), BENCH_LARGE_SCALE (1) and BENCH_LARGE_PG_SCALE (1) choose
 * what is measured; BENCH_LARGE_ROUNDS (3) and BENCH_LARGE_SECONDS (3) the effort of the load figures.
 * The SQLite files are generated once into BENCH_LARGE_DIR (default: sim-bigdb in the temp folder,
 * never the repository) and reused for six hours; each gateway runs on a copy. PostgreSQL runs on a
 * throw-away cluster (tests/helpers/postgres-cluster.ts), generated anew each run. BENCH_GATEWAY_DIR
 * measures another checkout's build (an earlier commit's worktree with `npm run build` done), on a
 * database migrated by that build; BENCH_LARGE_ONLY=purge measures only the housekeeping pass. The table goes to stdout and bench/results/large-latest.json.
 */
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import postgres from 'postgres';
import { createDatabase, databaseUrl, startPostgresCluster } from '../tests/helpers/postgres-cluster.js';
import { type Figures, gatewayFigures, purgeFigures } from './large/figures.js';
import { generateDatabase, type Location } from './large/generate.js';
import { BIG_TEAM, type Shape, shapeOf, teamId } from './large/shape.js';
import { type ClusterWatch, watchCluster } from './lib/postgres-watch.js';
import { ROOT } from './lib/proc.js';
import { machine, type Row, table } from './report.js';
import { type Sandbox, startGateway, startSandbox } from './servers.js';

const env = (name: string, fallback: string) => process.env[name] ?? fallback;
const settings = {
  engines: env('BENCH_LARGE_ENGINES', 'sqlite,postgres').split(','),
  scale: Number(env('BENCH_LARGE_SCALE', '1')),
  pgScale: Number(env('BENCH_LARGE_PG_SCALE', '1')),
  smallScale: 0.001,
  rounds: Number(env('BENCH_LARGE_ROUNDS', '3')),
  seconds: Number(env('BENCH_LARGE_SECONDS', '3')),
  dir: env('BENCH_LARGE_DIR', join(tmpdir(), 'sim-bigdb')),
  gatewayDir: resolve(env('BENCH_GATEWAY_DIR', ROOT)),
  /** BENCH_LARGE_ONLY=purge: only the housekeeping pass. */
  only: env('BENCH_LARGE_ONLY', ''),
  /** When the purge gateway's first housekeeping pass starts, and how long it may take. */
  purgeAfterSeconds: 12,
  purgeTimeoutSeconds: Number(env('BENCH_LARGE_PURGE_TIMEOUT', '300')),
};
const CACHE_HOURS = 6;

const log = (message: string) => process.stderr.write(`[large] ${message}\n`);

/** Which migrations the gateway under test has: a cached file is only reused with the same ones. */
function migrationsKey(): string {
  const journal = readFileSync(join(settings.gatewayDir, 'migrations', 'meta', '_journal.json'));
  return createHash('sha256').update(journal).digest('hex').slice(0, 12);
}

/** A generated SQLite file of this scale, made if missing or older than CACHE_HOURS. */
async function sqliteTemplate(scale: number): Promise<{ path: string; shape: Shape }> {
  mkdirSync(settings.dir, { recursive: true, mode: 0o700 });
  const path = join(settings.dir, `scale-${scale}-${migrationsKey()}.db`);
  const metaFile = `${path}.now`;
  const fresh =
    existsSync(path) && existsSync(metaFile) && Date.now() - statSync(path).mtimeMs < CACHE_HOURS * 3600_000;
  if (fresh) return { path, shape: shapeOf(scale, Number(readFileSync(metaFile, 'utf8'))) };
  for (const f of [path, `${path}-wal`, `${path}-shm`, metaFile]) rmSync(f, { force: true });
  const shape = shapeOf(scale, Date.now());
  await generateDatabase({ engine: 'sqlite', path }, shape, settings.gatewayDir);
  const { writeFileSync } = await import('node:fs');
  writeFileSync(metaFile, String(shape.now));
  return { path, shape };
}

/** The big team's event 50,000 back from its newest (or its oldest, on a small database). */
async function deepRow(location: Location): Promise<{ at: number; id: number }> {
  const query = 'SELECT at, id FROM audit_events WHERE workspace_id = $1 ORDER BY id DESC LIMIT 1 OFFSET $2';
  if (location.engine === 'sqlite') {
    const db = new Database(location.path, { readonly: true });
    try {
      const count = (
        db.prepare('SELECT count(*) AS n FROM audit_events WHERE workspace_id = ?').get(teamId(BIG_TEAM)) as {
          n: number;
        }
      ).n;
      const row = db
        .prepare(query.replace('$1', '?').replace('$2', '?'))
        .get(teamId(BIG_TEAM), Math.min(49_999, count - 1));
      return row as { at: number; id: number };
    } finally {
      db.close();
    }
  }
  const sql = postgres(location.url, { max: 1, onnotice: () => {} });
  try {
    const [{ n }] =
      (await sql`SELECT count(*)::int AS n FROM audit_events WHERE workspace_id = ${teamId(BIG_TEAM)}`) as unknown as [
        { n: number },
      ];
    const [row] = await sql.unsafe(query, [teamId(BIG_TEAM), Math.min(49_999, n - 1)]);
    return { at: Number(row?.at), id: Number(row?.id) };
  } finally {
    await sql.end();
  }
}

interface EngineSide {
  shape: Shape;
  /** A fresh copy of the generated database, for one gateway. */
  copy(name: string): Promise<Location>;
}

async function measureSide(
  side: EngineSide,
  sandbox: Sandbox,
  work: string,
  watch: ClusterWatch | undefined,
): Promise<Figures> {
  const location = await side.copy('measure');
  const gatewayEnv = (where: Location): Record<string, string> =>
    where.engine === 'postgres' ? { DATABASE_URL: where.url } : {};
  const databasePath = join(work, 'unused.db');
  if (settings.only === 'purge') return { ...(await purgeSide(side, sandbox, work)) };
  const deep = await deepRow(location);
  const gateway = await startGateway({
    databasePath: location.engine === 'sqlite' ? location.path : databasePath,
    sandbox,
    logDir: work,
    entry: join(settings.gatewayDir, 'dist', 'src', 'main.js'),
    env: gatewayEnv(location),
  });
  let figures: Figures;
  try {
    figures = await gatewayFigures(
      {
        url: gateway.url,
        pid: gateway.proc.pid,
        shape: side.shape,
        deep,
        ...(watch && location.engine === 'postgres' ? { cluster: { watch, database: 'measure' } } : {}),
      },
      settings.rounds,
      settings.seconds,
    );
  } finally {
    await gateway.proc.stop();
  }
  Object.assign(figures, await purgeSide(side, sandbox, work));
  return figures;
}

/** A fresh copy with a gateway whose first housekeeping pass comes soon, and requests beside it. */
async function purgeSide(side: EngineSide, sandbox: Sandbox, work: string): Promise<Figures> {
  const gatewayEnv = (where: Location): Record<string, string> =>
    where.engine === 'postgres' ? { DATABASE_URL: where.url } : {};
  const databasePath = join(work, 'unused.db');
  log('housekeeping pass with requests beside it');
  const purgeLocation = await side.copy('purge');
  const purgeGateway = await startGateway({
    databasePath: purgeLocation.engine === 'sqlite' ? purgeLocation.path : databasePath,
    sandbox,
    logDir: work,
    entry: join(settings.gatewayDir, 'dist', 'src', 'main.js'),
    env: { ...gatewayEnv(purgeLocation), HOUSEKEEPING_INTERVAL_SECONDS: String(settings.purgeAfterSeconds) },
  });
  try {
    const passDue = performance.now() - purgeGateway.startMs + settings.purgeAfterSeconds * 1000;
    return await purgeFigures(
      { url: purgeGateway.url, pid: purgeGateway.proc.pid, shape: side.shape },
      join(work, `gateway-${purgeGateway.port}.log`),
      passDue,
      (settings.purgeAfterSeconds + settings.purgeTimeoutSeconds) * 1000,
    );
  } finally {
    await purgeGateway.proc.stop();
  }
}

async function sqliteSides(work: string): Promise<Record<'small' | 'large', EngineSide>> {
  const side = async (scale: number): Promise<EngineSide> => {
    const template = await sqliteTemplate(scale);
    return {
      shape: template.shape,
      async copy(name) {
        const path = join(work, `${name}-${scale}.db`);
        for (const f of [path, `${path}-wal`, `${path}-shm`]) rmSync(f, { force: true });
        copyFileSync(template.path, path);
        return { engine: 'sqlite', path };
      },
    };
  };
  return { small: await side(settings.smallScale), large: await side(settings.scale) };
}

async function postgresSides(adminUrl: string): Promise<Record<'small' | 'large', EngineSide>> {
  const side = async (scale: number, name: string): Promise<EngineSide> => {
    const shape = shapeOf(scale, Date.now());
    await createDatabase(adminUrl, name);
    await generateDatabase(
      { engine: 'postgres', url: databaseUrl(adminUrl, name) },
      shape,
      settings.gatewayDir,
    );
    return {
      shape,
      async copy(copyName) {
        const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
        try {
          await admin.unsafe(`DROP DATABASE IF EXISTS ${copyName} WITH (FORCE)`);
        } finally {
          await admin.end();
        }
        await createDatabase(adminUrl, copyName, name);
        return { engine: 'postgres', url: databaseUrl(adminUrl, copyName) };
      },
    };
  };
  return {
    small: await side(settings.smallScale, 'small_tpl'),
    large: await side(settings.pgScale, 'large_tpl'),
  };
}

const TARGETS: [RegExp, string, (small: number, large: number) => boolean][] = [
  [/^audit, .*(page|only|kind|member|tool|day).*first byte ms \(worst\)$/, '≤ 100 ms', (_s, l) => l <= 100],
  [/^audit, .*export: first byte ms \(worst\)$/, '≤ 200 ms', (_s, l) => l <= 200],
  [/uncached bearer: gateway CPU/, '≤ 2 × small', (s, l) => l <= 2 * s],
  [/^housekeeping pass: seconds$/, '≤ 60 s', (_s, l) => l <= 60],
  [/^requests beside the pass: worst ms$/, '≤ 100 ms', (_s, l) => l <= 100],
];

function rowsOf(engine: string, small: Figures, large: Figures): Row[] {
  const fmt = (x: number | undefined) =>
    x === undefined || Number.isNaN(x)
      ? '—'
      : !Number.isFinite(x)
        ? 'not done'
        : x >= 100
          ? x.toFixed(0)
          : x.toPrecision(3);
  return Object.keys(large).map((figure) => {
    const s = small[figure];
    const l = large[figure] as number;
    const target = TARGETS.find(([pattern]) => pattern.test(figure));
    return {
      figure: `${engine}: ${figure}`,
      value: `${fmt(s)} → ${fmt(l)} (${s ? (l / s).toFixed(2) : '—'} ×)`,
      target: target?.[1] ?? '',
      met: target && s !== undefined ? target[2](s, l) : null,
    };
  });
}

async function main() {
  const work = join(tmpdir(), `sim-large-${process.pid}`);
  mkdirSync(work, { recursive: true, mode: 0o700 });
  const sandbox = await startSandbox();
  const results: Record<string, { small: Figures; large: Figures }> = {};
  let stopCluster: (() => void) | undefined;
  let closeWatch: (() => Promise<void>) | undefined;
  try {
    for (const engine of settings.engines) {
      let sides: Record<'small' | 'large', EngineSide>;
      let watch: ClusterWatch | undefined;
      if (engine === 'postgres') {
        const cluster = await startPostgresCluster(['shared_buffers = 256MB']);
        stopCluster = cluster.stop;
        watch = await watchCluster(cluster.adminUrl);
        closeWatch = watch.close;
        log('postgres: generating');
        sides = await postgresSides(cluster.adminUrl);
      } else {
        log('sqlite: generating (or reusing)');
        sides = await sqliteSides(work);
      }
      const small = await measureSide(sides.small, sandbox, work, watch);
      log(`${engine} small: ${JSON.stringify(small)}`);
      const large = await measureSide(sides.large, sandbox, work, watch);
      log(`${engine} large: ${JSON.stringify(large)}`);
      results[engine] = { small, large };
      await closeWatch?.();
      closeWatch = undefined;
      stopCluster?.();
      stopCluster = undefined;
    }
  } finally {
    await closeWatch?.();
    stopCluster?.();
    await sandbox.proc.stop();
    rmSync(work, { recursive: true, force: true });
  }
  const rows = Object.entries(results).flatMap(([engine, r]) => rowsOf(engine, r.small, r.large));
  process.stdout.write(`\n${table(rows)}\n`);
  const { writeFileSync } = await import('node:fs');
  const file = join(ROOT, 'bench', 'results', 'large-latest.json');
  writeFileSync(
    file,
    `${JSON.stringify({ machine: machine(), date: new Date().toISOString(), settings, rows, raw: results }, null, 2)}\n`,
  );
  log(`wrote ${file}`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
