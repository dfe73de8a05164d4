/**
 * Writes shape.ts's rows into a migrated database, fast: the migrations come from the gateway under
 * test (so a "before" build is measured on its own indexes), its secondary indexes are dropped, the
 * rows are bulk-loaded (SQLite: one prepared INSERT in transactions of 50,000 rows; PostgreSQL: COPY),
 * and the indexes are built again from their own definitions. SQLite is left unanalyzed (what the
 * gateway does about statistics is part of what is measured); PostgreSQL is vacuumed and analyzed,
 * as autovacuum would have done on a database a year old.
 */
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import Database from 'better-sqlite3';
import postgres from 'postgres';
import { type Shape, type TableRows, tablesOf } from './shape.js';

export type Location = { engine: 'sqlite'; path: string } | { engine: 'postgres'; url: string };

const log = (message: string) => process.stderr.write(`[large] ${message}\n`);

async function migrate(location: Location, gatewayDir: string): Promise<void> {
  const open = (await import(join(gatewayDir, 'dist', 'src', 'db', 'store', 'open.js'))) as {
    openMigratedStore(where: { databasePath: string; databaseUrl?: string }): Promise<{
      store: { close(): Promise<void> };
    }>;
  };
  const where =
    location.engine === 'sqlite'
      ? { databasePath: location.path }
      : { databasePath: '/nonexistent/unused.db', databaseUrl: location.url };
  const { store } = await open.openMigratedStore(where);
  await store.close();
}

export async function generateDatabase(location: Location, shape: Shape, gatewayDir: string): Promise<void> {
  const started = performance.now();
  await migrate(location, gatewayDir);
  const tables = tablesOf(shape);
  if (location.engine === 'sqlite') loadSqlite(location.path, tables);
  else await loadPostgres(location.url, tables);
  const total = tables.reduce((n, t) => n + t.count, 0);
  log(
    `${location.engine}: ${total.toLocaleString('en')} rows at scale ${shape.scale} in ${((performance.now() - started) / 1000).toFixed(0)} s`,
  );
}

function loadSqlite(path: string, tables: TableRows[]): void {
  const db = new Database(path);
  try {
    db.pragma('journal_mode = OFF');
    db.pragma('synchronous = OFF');
    db.pragma('foreign_keys = OFF');
    db.pragma('cache_size = -1000000');
    const indexes = db
      .prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL")
      .all() as { name: string; sql: string }[];
    for (const { name } of indexes) db.exec(`DROP INDEX "${name}"`);
    for (const t of tables) {
      const insert = db.prepare(
        `INSERT INTO ${t.table} (${t.columns.join(', ')}) VALUES (${t.columns.map(() => '?').join(', ')})`,
      );
      const batch = db.transaction((from: number, to: number) => {
        for (let i = from; i < to; i++)
          insert.run(t.row(i).map((v) => (typeof v === 'boolean' ? Number(v) : v)));
      });
      for (let from = 0; from < t.count; from += 50_000) batch(from, Math.min(t.count, from + 50_000));
    }
    for (const { sql } of indexes) db.exec(sql);
    db.pragma('journal_mode = WAL');
  } finally {
    db.close();
  }
}

/** COPY's text format: tab-separated, \N for NULL, backslash escapes. */
function copyLine(row: (string | number | boolean | null)[]): string {
  return `${row
    .map((v) =>
      v === null
        ? '\\N'
        : typeof v === 'boolean'
          ? v
            ? 't'
            : 'f'
          : typeof v === 'number'
            ? String(v)
            : v.replace(/[\\\t\n\r]/g, (c) =>
                c === '\t' ? '\\t' : c === '\n' ? '\\n' : c === '\r' ? '\\r' : '\\\\',
              ),
    )
    .join('\t')}\n`;
}

async function loadPostgres(url: string, tables: TableRows[]): Promise<void> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const indexes = await sql<{ name: string; def: string }[]>`
      SELECT indexname AS name, indexdef AS def FROM pg_indexes
      WHERE schemaname = 'public' AND indexname NOT IN (SELECT conname FROM pg_constraint)`;
    for (const { name } of indexes) await sql.unsafe(`DROP INDEX "${name}"`);
    await sql`SET maintenance_work_mem = '512MB'`;
    await sql`SET session_replication_role = replica`;
    for (const t of tables) {
      const writable = await sql.unsafe(`COPY ${t.table} (${t.columns.join(', ')}) FROM STDIN`).writable();
      async function* lines() {
        let chunk = '';
        for (let i = 0; i < t.count; i++) {
          chunk += copyLine(t.row(i));
          if (chunk.length > 1 << 16) {
            yield chunk;
            chunk = '';
          }
        }
        if (chunk) yield chunk;
      }
      await pipeline(Readable.from(lines()), writable);
    }
    for (const { def } of indexes) await sql.unsafe(def);
    await sql`SELECT setval(pg_get_serial_sequence('audit_events', 'id'), (SELECT max(id) FROM audit_events))`;
    await sql`VACUUM ANALYZE`;
  } finally {
    await sql.end();
  }
}
