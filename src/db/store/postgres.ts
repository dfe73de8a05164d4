import { drizzle } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import * as pgTables from '../postgres/schema/index.js';
import { assertOutsideTransaction, TransactionEndedError, withinTransaction } from './transaction-scope.js';
import type { OpenStore, Orm, Store, Tables } from './types.js';

export interface PostgresStoreOptions {
  /** Connections in the pool. */
  max?: number;
}

/**
 * The PostgreSQL store: postgres.js (a pool, statements prepared per connection) behind drizzle's
 * pg-core. Transactions run at READ COMMITTED, PostgreSQL's default; what SQLite's single writer gave
 * for free is asked for explicitly: a row lock on the aggregate's root row (forUpdate in query.ts) or a
 * conditional UPDATE … RETURNING (docs/database.md, "IMMEDIATE on PostgreSQL").
 */
export function openPostgresStore(url: string, options: PostgresStoreOptions = {}): OpenStore {
  const client = postgres(url, {
    max: options.max ?? 10,
    // Notices (e.g. "relation already exists, skipping") are not the operator's business.
    onnotice: () => {},
    connection: { application_name: 'social-intel-mcp' },
  });
  const t = pgTables as Tables;
  // drizzle runs statements outside a transaction through client.unsafe (inside one, through the
  // transaction's own connection): the guard sits there.
  const guarded = new Proxy(client, {
    get(target, property, receiver) {
      if (property === 'unsafe') {
        return (...args: Parameters<typeof target.unsafe>) => {
          assertOutsideTransaction(root);
          return target.unsafe(...args);
        };
      }
      return Reflect.get(target, property, receiver);
    },
  });
  const orm = drizzle({ client: guarded });
  const root: OpenStore = {
    engine: 'postgres',
    t,
    inTransaction: false,
    orm: orm as unknown as Orm,
    transaction(fn) {
      assertOutsideTransaction(root);
      return withinTransaction(root, () => orm.transaction((tx) => inHandle(tx as Orm, t, fn)));
    },
    close: () => client.end({ timeout: 5 }),
  };
  return root;
}

/**
 * Runs `fn` with a handle on the transaction `tx`. postgres.js would run a leaked handle's queries on
 * a pooled connection, outside any transaction: once `fn` has settled, the handle refuses to be used.
 */
async function inHandle<T>(tx: Orm, t: Tables, fn: (store: Store) => Promise<T>): Promise<T> {
  let open = true;
  const nestable = tx as unknown as { transaction<R>(f: (inner: Orm) => Promise<R>): Promise<R> };
  const store: Store = {
    engine: 'postgres',
    t,
    inTransaction: true,
    get orm() {
      if (!open) throw new TransactionEndedError();
      return tx;
    },
    async transaction(inner) {
      if (!open) throw new TransactionEndedError();
      // drizzle's pg transaction nests as a savepoint.
      return nestable.transaction((nested) => inHandle(nested, t, inner));
    },
  };
  try {
    return await fn(store);
  } finally {
    open = false;
  }
}
