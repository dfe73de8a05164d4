import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import { type BetterSQLite3Database, drizzle } from 'drizzle-orm/better-sqlite3';
import { privateFile } from './data-folder.js';
import * as schema from './schema/index.js';

export type Db = BetterSQLite3Database<typeof schema> & { $client: Database.Database };

/** How long a writer waits for another connection's lock before SQLITE_BUSY. */
const BUSY_TIMEOUT_MS = 5_000;

/**
 * SQLite's page cache, in KiB (a negative cache_size is KiB: https://sqlite.org/pragma.html#pragma_cache_size).
 * better-sqlite3 builds SQLite with a 16 MB default (deps/defines.gypi), which a busy gateway fills as its
 * tables grow, all of it in the main C heap, where it reads as native memory growth in a long soak
 * (docs/performance.md). SQLite's own default of 2 MB holds the
 * pages every request reads (the B-tree interiors and recent rows); the rest comes from the kernel's
 * file cache.
 */
const PAGE_CACHE_KIB = 2_000;

export interface SqliteFileOptions {
  /** The page cache in KiB (default PAGE_CACHE_KIB): a connection that lives only for a pass may take more. */
  pageCacheKib?: number;
  /** Whether to refresh the planner's statistics at open (default true): the process's first connection does. */
  planAtOpen?: boolean;
  /** WAL pages after which a commit checkpoints (SQLite's default 1000); 0 for a connection that checkpoints itself. */
  walAutocheckpoint?: number;
}

/**
 * Opens the database (file and folder owner-only) with the pragmas every connection needs: WAL so readers never block the writer,
 * foreign keys enforced (off by default in SQLite), a busy timeout so concurrent processes queue
 * rather than fail, and NORMAL sync (durable at every WAL checkpoint, safe against corruption).
 */
export function openSqliteFile(path: string, options: SqliteFileOptions = {}): Database.Database {
  if (path !== ':memory:') {
    // Owner-only: 0600 files in a 0700 folder. SQLite gives the -wal and -shm files it creates the
    // database file's mode (unix VFS), so the file is made 0600 before SQLite opens it; companions
    // left by an older version are tightened too.
    privateFile(path);
    for (const companion of [`${path}-wal`, `${path}-shm`]) if (existsSync(companion)) privateFile(companion);
  }
  const sqlite = new Database(path);
  sqlite.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  if (options.walAutocheckpoint !== undefined)
    sqlite.pragma(`wal_autocheckpoint = ${options.walAutocheckpoint}`);
  sqlite.pragma(`cache_size = -${options.pageCacheKib ?? PAGE_CACHE_KIB}`);
  // Statistics for the planner where a table has none or has grown a lot, the housekeeping pass keeps
  // them current (https://sqlite.org/pragma.html#pragma_optimize). Sampled: ANALYZE reads at most about
  // 1,000 rows of each index (a full one took 18 s on the large bench database, the sample 2 s).
  sqlite.pragma('analysis_limit = 1000');
  if (options.planAtOpen ?? true) sqlite.pragma('optimize = 0x10002');
  return sqlite;
}

/** A synchronous drizzle handle on its own connection, for SQLite's migrator (it is synchronous) and tests. */
export function openDatabase(path: string): Db {
  return drizzle(openSqliteFile(path), { schema }) as Db;
}

export function closeDatabase(db: Db): void {
  if (db.$client.open) db.$client.close();
}
