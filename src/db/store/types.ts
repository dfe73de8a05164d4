import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import type * as pgTables from '../postgres/schema/index.js';
import type { InvalidationHandler, InvalidationWatch } from './invalidation.js';

export type Engine = 'sqlite' | 'postgres';

/**
 * Every table, typed as the pg-core twins. On SQLite the values are the sqlite-core tables, which have
 * the same names, columns and row types (tests/db/typing.test.ts proves the types, and
 * tests/db/schema-equivalence.test.ts the real databases): see ARCHITECTURE.md, "One typing dialect".
 */
export type Tables = typeof pgTables;

/**
 * drizzle's query builder for the store's engine, typed as pg-core's. Only what both dialects have is
 * used through it: select/insert/update/delete with where, joins, orderBy, limit, onConflict… and
 * `.returning()`, always awaited. Engine-specific pieces go through helpers (query.ts: forUpdate).
 */
export type Orm = PgDatabase<PgQueryResultHKT, Record<string, never>>;

/** One set of async data-access functions takes this, whichever engine is behind it. */
export interface Store {
  readonly engine: Engine;
  readonly orm: Orm;
  readonly t: Tables;
  /** True on the handle a transaction callback receives (and its nested ones). */
  readonly inTransaction: boolean;
  /**
   * Runs `fn` as one transaction: every change or none; a throw rolls back and is rethrown. Inside,
   * use only the handle `fn` receives, and do no I/O but the database's (see ARCHITECTURE.md, "Transactions").
   * Called on a transaction's handle, it nests as a savepoint.
   */
  transaction<T>(fn: (tx: Store) => Promise<T>): Promise<T>;
  /**
   * Tells every cache built over this database that what it holds about `subject` (a grant, a workspace,
   * a membership: invalidation.ts) is stale, once what this handle wrote is committed: this process's
   * watchers synchronously (on the root handle now, so call it after the write; on a transaction's
   * handle after the outermost COMMIT, never after a rollback), other instances' through NOTIFY on
   * PostgreSQL (inside the transaction, so delivered only on commit). Another process on the same
   * SQLite file sees the commit itself (InvalidationWatch.check). One line after each write that changes
   * a cached answer (ARCHITECTURE.md, "Caches over the database").
   */
  invalidate(subject: string): Promise<void>;
}

/** What every store takes, whichever the engine. */
export interface StoreOptions {
  /**
   * Refuse the root handle inside its own transaction with TransactionMisuseError (default true).
   * Costs promise hooks on every promise of the process (transaction-scope.ts): production turns it off.
   */
  scopeChecks?: boolean;
}

/** Receives the payload of each notification sent on a channel. */
export type NotificationHandler = (payload: string) => void;

export interface OpenStore extends Store {
  /** Ends the connection (SQLite) or the pool (PostgreSQL), after queries in flight. */
  close(): Promise<void>;
  /**
   * Calls `handler` for every notification on `channel` from now on, sent by this process or (on
   * PostgreSQL, LISTEN) any other on the same database. Resolves once listening; the returned function
   * stops it. Delivery is best effort: a notification sent while PostgreSQL's listening connection is
   * reconnecting is lost, so use it to act sooner, not as the only record.
   */
  listen(channel: string, handler: NotificationHandler): Promise<() => Promise<void>>;
  /** Sends `payload` (under 8,000 bytes) to every listener of `channel` (PostgreSQL NOTIFY). */
  notify(channel: string, payload: string): Promise<void>;
  /**
   * Calls `handler` with the subject of every invalidate() on this database from now on (this process's
   * after their commit, at once; other instances' as their notifications arrive; EVERYTHING when a
   * commit from elsewhere or a lost connection means anything may have changed). Ask the watch's
   * check() before each cached answer.
   */
  watchInvalidations(handler: InvalidationHandler): InvalidationWatch;
  /** SQLite on a file: what another connection of this process on it needs. Absent otherwise. */
  readonly sqliteFile?: SqliteSharing | undefined;
}

/**
 * Lets a second connection of this process write to the same SQLite file (a worker thread's, off the
 * event loop) without this one ever waiting for SQLite's lock: better-sqlite3 waits for a lock by
 * sleeping on the thread, which here is the event loop.
 */
export interface SqliteSharing {
  readonly path: string;
  /**
   * Runs `write` (the other connection's statement or transaction, to its end) once this connection
   * has no transaction open; meanwhile this connection's writes wait at its gate and its reads go on.
   */
  lendWriteTurn<T>(write: () => Promise<T>): Promise<T>;
  /**
   * Stops this connection's automatic checkpoints until the returned function is called, for while the
   * other connection checkpoints off the event loop: a commit that crosses wal_autocheckpoint copies
   * the whole WAL back into the file, and syncs it, inside the commit.
   */
  pauseCheckpoints(): () => void;
}
