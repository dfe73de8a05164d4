import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { type BetterSQLite3Database, drizzle } from 'drizzle-orm/better-sqlite3';
import * as schema from './schema/index.js';

export type Db = BetterSQLite3Database<typeof schema> & { $client: Database.Database };

/** How long a writer waits for another connection's lock before SQLITE_BUSY. */
const BUSY_TIMEOUT_MS = 5_000;

/**
 * Opens the database with the pragmas every connection needs: WAL so readers never block the writer,
 * foreign keys enforced (off by default in SQLite), a busy timeout so concurrent processes queue
 * rather than fail, and NORMAL sync (durable at every WAL checkpoint, safe against corruption).
 */
export function openDatabase(path: string): Db {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const sqlite = new Database(path);
  sqlite.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  return drizzle(sqlite, { schema }) as Db;
}

export function closeDatabase(db: Db): void {
  if (db.$client.open) db.$client.close();
}
