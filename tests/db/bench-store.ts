/**
 * What the async store costs against today's synchronous drizzle handle, and what PostgreSQL on
 * loopback costs against SQLite: one point lookup by primary key, and one short read-lock-write
 * transaction (the shape of a refresh-token rotation), each run sequentially and 16 at a time.
 * Run: npx tsx tests/db/bench-store.ts [operations-per-variant]
 * One process on a shared machine: compare the ratios, not the numbers.
 */
import { join } from 'node:path';
import { eq, sql } from 'drizzle-orm';
import { closeDatabase, openDatabase } from '../../src/db/client.js';
import { migrate } from '../../src/db/migrate.js';
import { migratePostgres } from '../../src/db/postgres/migrate.js';
import { users } from '../../src/db/schema/index.js';
import {
  first,
  forUpdate,
  type OpenStore,
  openPostgresStore,
  openSqliteStore,
} from '../../src/db/store/index.js';
import { createDatabase, databaseUrl, startPostgresCluster } from '../helpers/postgres-cluster.js';
import { tempDir } from '../helpers/temp.js';

const operations = Number(process.argv[2] ?? 5000);
const NOW = 1_790_000_000_000;
const GRANTS = 64;

async function seed(store: OpenStore) {
  const { users: u, workspaces, oauthGrants } = store.t;
  await store.orm
    .insert(u)
    .values({ id: 'u', email: 'u@example.com', passwordHash: 'x', createdAt: NOW, updatedAt: NOW });
  await store.orm
    .insert(workspaces)
    .values({ id: 'w', name: 'w', kind: 'personal', createdAt: NOW, updatedAt: NOW });
  await store.orm.insert(oauthGrants).values(
    Array.from({ length: GRANTS }, (_, n) => ({
      id: `g${n}`,
      userId: 'u',
      workspaceId: 'w',
      clientId: 'c',
      scopes: 'searches:read',
      resource: 'r',
      createdAt: NOW,
    })),
  );
}

let serial = 0;
/**
 * Lock a grant, read it, mark it used, add a token: a refresh rotation's statements. Round robin over
 * GRANTS grants (token families), so concurrent rotations mostly lock different rows, as clients do.
 */
function rotation(store: OpenStore) {
  const n = serial++;
  const id = `g${n % GRANTS}`;
  return store.transaction(async (tx) => {
    const { oauthGrants: g, oauthTokens: tokens } = tx.t;
    const grant = await first(forUpdate(tx, tx.orm.select().from(g).where(eq(g.id, id))));
    if (!grant) throw new Error(`no grant ${id}`);
    await tx.orm.update(g).set({ lastUsedAt: NOW }).where(eq(g.id, id));
    await tx.orm.insert(tokens).values({
      tokenHash: `t${n}`,
      grantId: id,
      familyId: id,
      kind: 'refresh',
      createdAt: NOW,
      expiresAt: NOW + 1,
    });
  });
}

async function time(label: string, concurrency: number, op: () => unknown | Promise<unknown>) {
  for (let i = 0; i < 200; i++) await op(); // warm-up
  const started = performance.now();
  const cpu = process.cpuUsage();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next++ < operations) await op();
    }),
  );
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  console.log(
    `${label.padEnd(52)} ${String(Math.round((operations / ms) * 1000)).padStart(7)} ops/s  ${((used.user + used.system) / operations).toFixed(1).padStart(6)} µs CPU/op`,
  );
}

const dir = tempDir('sim-bench-store-');
const path = join(dir.path, 'bench.db');
const sync = openDatabase(path);
migrate(sync);
const sqlite = openSqliteStore(path);
await seed(sqlite);
const cluster = await startPostgresCluster();
try {
  await createDatabase(cluster.adminUrl, 'bench');
  const url = databaseUrl(cluster.adminUrl, 'bench');
  await migratePostgres(url);
  const pg = openPostgresStore(url);
  await seed(pg);

  console.log(`${operations} operations per variant`);
  await time('lookup: sync drizzle (today), 1 at a time', 1, () =>
    sync.select().from(users).where(eq(users.id, 'u')).get(),
  );
  await time('lookup: store on SQLite, 1 at a time', 1, () =>
    first(sqlite.orm.select().from(sqlite.t.users).where(eq(sqlite.t.users.id, 'u'))),
  );
  await time('lookup: store on SQLite, 16 at a time', 16, () =>
    first(sqlite.orm.select().from(sqlite.t.users).where(eq(sqlite.t.users.id, 'u'))),
  );
  await time('lookup: store on PostgreSQL, 1 at a time', 1, () =>
    first(pg.orm.select().from(pg.t.users).where(eq(pg.t.users.id, 'u'))),
  );
  await time('lookup: store on PostgreSQL, 16 at a time', 16, () =>
    first(pg.orm.select().from(pg.t.users).where(eq(pg.t.users.id, 'u'))),
  );
  const unprepared = openPostgresStore(url, { prepare: false });
  await time('lookup: same, statements not prepared, 1 at a time', 1, () =>
    first(unprepared.orm.select().from(unprepared.t.users).where(eq(unprepared.t.users.id, 'u'))),
  );
  await time('lookup: same, statements not prepared, 16 at a time', 16, () =>
    first(unprepared.orm.select().from(unprepared.t.users).where(eq(unprepared.t.users.id, 'u'))),
  );
  await unprepared.close();
  const preparedSqlite = sqlite.orm
    .select()
    .from(sqlite.t.users)
    .where(eq(sqlite.t.users.id, sql.placeholder('id')))
    .prepare('bench_lookup');
  const preparedPg = pg.orm
    .select()
    .from(pg.t.users)
    .where(eq(pg.t.users.id, sql.placeholder('id')))
    .prepare('bench_lookup');
  await time('lookup, prepared: store on SQLite, 1 at a time', 1, () => preparedSqlite.execute({ id: 'u' }));
  await time('lookup, prepared: store on PostgreSQL, 1 at a time', 1, () => preparedPg.execute({ id: 'u' }));
  await time('lookup, prepared: store on PostgreSQL, 16 at a time', 16, () =>
    preparedPg.execute({ id: 'u' }),
  );
  await time('rotation: store on SQLite, 1 at a time', 1, () => rotation(sqlite));
  await time('rotation: store on SQLite, 16 at a time', 16, () => rotation(sqlite));
  await time('rotation: store on PostgreSQL, 1 at a time', 1, () => rotation(pg));
  await time('rotation: store on PostgreSQL, 16 at a time', 16, () => rotation(pg));
  await pg.close();
} finally {
  await sqlite.close();
  closeDatabase(sync);
  cluster.stop();
  dir.remove();
}
