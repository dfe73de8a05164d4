import type { SQL } from 'drizzle-orm';
import type { Store } from './types.js';

/** The first row of a query (add `.limit(1)` where more could match), or undefined. */
export async function first<Row>(rows: PromiseLike<Row[]>): Promise<Row | undefined> {
  return (await rows)[0];
}

interface Lockable {
  for(strength: 'update'): unknown;
}

/**
 * Locks the rows a SELECT reads until the transaction ends, so a read-decide-write on them is not
 * interleaved with another's: PostgreSQL `FOR UPDATE` (a waiter then reads the committed row, even at
 * READ COMMITTED). On SQLite the transaction already holds the database's only write lock (BEGIN
 * IMMEDIATE, and the store's gate within the process), so the query is unchanged. Lock the aggregate's
 * root row (the grant for a token family, the workspace for team policy) before reading its children.
 */
export function forUpdate<Query>(db: Store, query: Query): Query {
  if (!db.inTransaction) {
    throw new Error('forUpdate outside a transaction locks nothing: run it inside store.transaction().');
  }
  return db.engine === 'postgres' ? ((query as unknown as Lockable).for('update') as Query) : query;
}

const UNIQUE_VIOLATIONS = new Set(['SQLITE_CONSTRAINT_UNIQUE', 'SQLITE_CONSTRAINT_PRIMARYKEY', '23505']);

/**
 * Whether an error is a unique or primary key violation, on either engine (SQLite's extended code, or
 * SQLSTATE 23505). drizzle wraps the driver's error in a DrizzleQueryError, so the causes are searched.
 */
export function isUniqueViolation(error: unknown): boolean {
  for (let e: unknown = error; e; e = (e as { cause?: unknown }).cause) {
    if (UNIQUE_VIOLATIONS.has((e as { code?: unknown }).code as string)) return true;
  }
  return false;
}

/**
 * Whether an error is PostgreSQL refusing a text value it cannot hold: a NUL character (SQLSTATE
 * 22021, "invalid byte sequence for encoding UTF8: 0x00"; PostgreSQL text never holds U+0000, SQLite
 * text does) or one the encoding cannot represent (22P05). It comes from input, never from our data,
 * so it is the request's fault (app.ts answers 400).
 */
export function isUnstorableText(error: unknown): boolean {
  for (let e: unknown = error; e; e = (e as { cause?: unknown }).cause) {
    const code = (e as { code?: unknown }).code;
    if (code === '22021' || code === '22P05') return true;
  }
  return false;
}

/**
 * Runs `fn` in a transaction: the one `db` is already part of (a function called from inside a larger
 * transaction joins it, without a savepoint's two extra statements), else a new one.
 */
export function atomically<T>(db: Store, fn: (tx: Store) => Promise<T>): Promise<T> {
  return db.inTransaction ? fn(db) : db.transaction(fn);
}

/** Rows a write matched, from its `.returning()` rows (drivers' own counts differ by engine). */
export async function changed(rows: PromiseLike<unknown[]>): Promise<number> {
  return (await rows).length;
}

interface SqliteRaw {
  values(query: SQL): Promise<unknown[][]>;
}
interface PostgresRaw {
  execute(query: SQL): Promise<Record<string, unknown>[]>;
}

/**
 * The rows of a statement written in SQL, each as its column values in the statement's order. For what
 * the query builder cannot say (a health check, an engine's own size function), and for hot paths
 * where it costs too much: the builder took tens of times as long to build an UPDATE with a subquery
 * as a `sql` template takes for the same statement (more than running it), and on PostgreSQL one
 * statement can do what takes the builder several. The SQL is the caller's, so it must suit `db.engine`; give it the same text every
 * time with the values as parameters (SQLite's executor and postgres.js then prepare it once).
 */
export async function statementRows(db: Store, query: SQL): Promise<unknown[][]> {
  if (db.engine === 'postgres') {
    return (await (db.orm as unknown as PostgresRaw).execute(query)).map((row) => Object.values(row));
  }
  return (db.orm as unknown as SqliteRaw).values(query);
}

/** The first column of the first row of a statement written in SQL (see statementRows). */
export async function scalar(db: Store, query: SQL): Promise<unknown> {
  return (await statementRows(db, query))[0]?.[0];
}
