import { drizzle } from 'drizzle-orm/sqlite-proxy';
import { openSqliteFile, type SqliteFileOptions } from '../client.js';
import * as sqliteTables from '../schema/index.js';
import { EVERYTHING, type InvalidationWatch, LocalWatchers, PendingInvalidations } from './invalidation.js';
import { LocalChannels } from './local-channels.js';
import { SqliteCheckpoints } from './sqlite-checkpoints.js';
import { type ProxyMethod, SqliteExecutor } from './sqlite-executor.js';
import { ConnectionGate } from './sqlite-gate.js';
import { assertOutsideTransaction, TransactionEndedError, withinTransaction } from './transaction-scope.js';
import type { OpenStore, Orm, SqliteSharing, Store, StoreOptions, Tables } from './types.js';

export interface SqliteStoreOptions extends StoreOptions, SqliteFileOptions {
  /**
   * For a second connection of this process on the file (a worker thread's): each writing statement
   * and each transaction first takes a turn from the first connection (SqliteSharing.lendWriteTurn,
   * asked across threads) and gives it back when done, so the first connection never meets this
   * one's lock.
   */
  takeTurn?: () => Promise<() => void>;
  /**
   * The server's connection: its checkpoints move to a worker thread once it has written a little
   * (./sqlite-checkpoints.ts), so no request waits for one.
   */
  checkpointsOffThread?: boolean;
}

/**
 * The SQLite store: better-sqlite3 (synchronous, one connection) behind drizzle's async sqlite-proxy
 * driver, so the same awaited queries run here and on PostgreSQL.
 *
 * better-sqlite3 cannot run a transaction whose callback awaits, and one connection has one transaction
 * at a time. So a transaction holds a gate: BEGIN IMMEDIATE, the callback with its own handle, COMMIT.
 * While it is open, every statement from outside waits for it to end (otherwise it would run inside
 * it, and be rolled back with it), and so does the next transaction. A statement outside a transaction
 * runs at once, on its own (autocommit). IMMEDIATE also keeps other processes on the same file out,
 * as before (their busy timeout applies). Another connection of this process on the same file (the
 * housekeeping worker's) writes only in turns this one lends it (`sqliteFile`), while its own writes
 * wait at the gate and its reads go on.
 */
export function openSqliteStore(path: string, options: SqliteStoreOptions = {}): OpenStore {
  const scopeChecks = options.scopeChecks ?? true;
  const takeTurn = options.takeTurn;
  const executor = new SqliteExecutor(openSqliteFile(path, options));
  const gate = new ConnectionGate();
  const checkpoints =
    options.checkpointsOffThread && path !== ':memory:'
      ? new SqliteCheckpoints(path, executor.connection, options.walAutocheckpoint)
      : null;
  const channels = new LocalChannels();
  const watchers = new LocalWatchers();
  const t = sqliteTables as unknown as Tables;
  const root: OpenStore = {
    engine: 'sqlite',
    t,
    inTransaction: false,
    orm: asOrm(
      drizzle(async (sql, params, method) => {
        if (scopeChecks) assertOutsideTransaction(root);
        const readsOnly = executor.readsOnly(sql);
        while (gate.holds(readsOnly)) await gate.idle();
        // A read needs no turn: in WAL it never waits for the other connection's writes.
        if (readsOnly) return executor.execute(sql, params, method as ProxyMethod);
        checkpoints?.noteWrite();
        if (!takeTurn) return executor.execute(sql, params, method as ProxyMethod);
        const giveBack = await takeTurn();
        try {
          return executor.execute(sql, params, method as ProxyMethod);
        } finally {
          giveBack();
        }
      }),
    ),
    async transaction(fn) {
      if (scopeChecks) assertOutsideTransaction(root);
      while (gate.busy) await gate.idle();
      const release = gate.close();
      checkpoints?.noteWrite();
      const giveBack = takeTurn ? await takeTurn() : undefined;
      try {
        const pending = new PendingInvalidations();
        const value = await withinTransaction(
          root,
          () => runTransaction(executor, t, pending, fn),
          scopeChecks,
        );
        pending.deliverTo(watchers);
        return value;
      } finally {
        giveBack?.();
        release();
      }
    },
    sqliteFile: path === ':memory:' ? undefined : sharing(path, executor, gate, checkpoints),
    // Autocommit: what the caller wrote before is committed. Another process on the file sees the
    // commit through data_version, so nothing is sent.
    async invalidate(subject) {
      watchers.deliver(subject);
    },
    watchInvalidations: (handler) => watchFile(executor, watchers, handler),
    async close() {
      while (gate.busy) await gate.idle();
      await checkpoints?.close();
      if (executor.connection.open) executor.connection.close();
    },
    listen: (channel, handler) => channels.listen(channel, handler),
    notify: (channel, payload) => channels.notify(channel, payload),
  };
  return root;
}

/** drizzle's sqlite-core builder under the pg-core type every data-access function is written against. */
function asOrm(db: unknown): Orm {
  return db as Orm;
}

/**
 * PRAGMA data_version changes only when another connection commits to the file (the admin CLI, a
 * second process): this one's own writes announce themselves. Read on every check, through one
 * prepared statement.
 */
function watchFile(
  executor: SqliteExecutor,
  watchers: LocalWatchers,
  handler: (subject: string) => void,
): InvalidationWatch {
  const stop = watchers.add(handler);
  const version = executor.connection.prepare('PRAGMA data_version').pluck();
  let seen = version.get();
  return {
    check() {
      if (!executor.connection.open) return false;
      const now = version.get();
      if (now !== seen) {
        seen = now;
        handler(EVERYTHING);
      }
      return true;
    },
    ready: Promise.resolve(),
    async stop() {
      stop();
    },
  };
}

async function runTransaction<T>(
  executor: SqliteExecutor,
  t: Tables,
  pending: PendingInvalidations,
  fn: (tx: Store) => Promise<T>,
) {
  executor.control('BEGIN IMMEDIATE');
  const handle = transactionHandle(executor, t, pending);
  try {
    const value = await fn(handle.store);
    executor.control('COMMIT');
    return value;
  } catch (error) {
    if (executor.connection.inTransaction) executor.control('ROLLBACK');
    throw error;
  } finally {
    handle.end();
  }
}

/**
 * The handle a transaction callback gets. Its statements skip the gate (the transaction holds it);
 * once the transaction has ended, using it throws instead of writing outside any transaction.
 */
function transactionHandle(
  executor: SqliteExecutor,
  t: Tables,
  pending: PendingInvalidations,
  depth = 0,
): { store: Store; end(): void } {
  let open = true;
  const orm = asOrm(
    drizzle(async (sql, params, method) => {
      // A query built before the end and run after it.
      if (!open) throw new TransactionEndedError();
      return executor.execute(sql, params, method as ProxyMethod);
    }),
  );
  const store: Store = {
    engine: 'sqlite',
    t,
    inTransaction: true,
    get orm() {
      if (!open) throw new TransactionEndedError();
      return orm;
    },
    async transaction(fn) {
      if (!open) throw new TransactionEndedError();
      const savepoint = `sp${depth + 1}`;
      executor.control(`SAVEPOINT ${savepoint}`);
      const nested = transactionHandle(executor, t, pending, depth + 1);
      try {
        const value = await fn(nested.store);
        executor.control(`RELEASE ${savepoint}`);
        return value;
      } catch (error) {
        executor.control(`ROLLBACK TO ${savepoint}`);
        executor.control(`RELEASE ${savepoint}`);
        throw error;
      } finally {
        nested.end();
      }
    },
    async invalidate(subject) {
      if (!open) throw new TransactionEndedError();
      pending.add(subject);
    },
  };
  return {
    store,
    end: () => {
      open = false;
    },
  };
}

/** What a second connection of this process on the file needs of this one (types.ts: SqliteSharing). */
function sharing(
  path: string,
  executor: SqliteExecutor,
  gate: ConnectionGate,
  checkpoints: SqliteCheckpoints | null,
): SqliteSharing {
  return {
    path,
    async lendWriteTurn(write) {
      while (gate.busy) await gate.idle();
      const release = gate.close('writes');
      try {
        return await write();
      } finally {
        release();
      }
    },
    pauseCheckpoints() {
      if (checkpoints) return checkpoints.pause();
      const before = executor.connection.pragma('wal_autocheckpoint', { simple: true }) as number;
      executor.connection.pragma('wal_autocheckpoint = 0');
      return () => {
        if (executor.connection.open) executor.connection.pragma(`wal_autocheckpoint = ${before}`);
      };
    },
  };
}
