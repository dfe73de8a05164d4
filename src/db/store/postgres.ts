import { sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import { DEFAULT_POOL_SIZE } from '../pool-size.js';
import * as pgTables from '../postgres/schema/index.js';
import { INVALIDATION_CHANNEL, LocalWatchers, PendingInvalidations } from './invalidation.js';
import { InvalidationListener } from './postgres-invalidations.js';
import { assertOutsideTransaction, TransactionEndedError, withinTransaction } from './transaction-scope.js';
import type { OpenStore, Orm, Store, StoreOptions, Tables } from './types.js';

export interface PostgresStoreOptions extends StoreOptions {
  /** Connections in the pool (default DEFAULT_POOL_SIZE). */
  max?: number;
  /**
   * Prepare every statement once per connection (default). Off only behind a pooler that cannot keep
   * prepared statements (PgBouncer in transaction mode before 1.21).
   */
  prepare?: boolean;
}

/**
 * How long a pool connection waits before it connects again after an error, in seconds: doubling from
 * 50 ms to at most 1 s. postgres.js's own grows to 20 s, and a query queued on the connection waits it
 * out, so during a restart requests took up to 25 s to be answered 503, and as long to recover after
 * it (tests/reliability/database-outage.test.ts). One attempt a second per connection costs a database
 * that is down nothing.
 */
export function reconnectDelaySeconds(retries: number): number {
  return Math.min(0.05 * 2 ** retries, 1);
}

/**
 * The PostgreSQL store: postgres.js (a pool, statements prepared per connection) behind drizzle's
 * pg-core. Transactions run at READ COMMITTED, PostgreSQL's default; what SQLite's single writer gave
 * for free is asked for explicitly: a row lock on the aggregate's root row (forUpdate in query.ts) or a
 * conditional UPDATE … RETURNING (ARCHITECTURE.md, "PostgreSQL: what `BEGIN IMMEDIATE` gave, asked for explicitly").
 */
export function openPostgresStore(url: string, options: PostgresStoreOptions = {}): OpenStore {
  const client = postgres(url, {
    max: options.max ?? DEFAULT_POOL_SIZE,
    // Notices (e.g. "relation already exists, skipping") are not the operator's business.
    onnotice: () => {},
    connection: { application_name: 'social-intel-mcp' },
    backoff: reconnectDelaySeconds,
  });
  const t = pgTables as Tables;
  const prepare = options.prepare ?? true;
  const scopeChecks = options.scopeChecks ?? true;
  // drizzle runs every statement through client.unsafe (a transaction's through the client begin()
  // or savepoint() hands it): the transaction-scope guard sits there, for statements outside one.
  // drizzle also asks for an unnamed statement unless the query was .prepare()d by name, so PostgreSQL
  // would parse and plan each one anew; postgres.js keeps a prepared statement per SQL text and
  // connection instead. Measured (tests/db/bench-store.ts, 16 lookups in flight): client CPU per
  // lookup 157–170 → 111–115 µs and 1.5–2× the rate; one at a time it costs the client ~20% more.
  const guard = (target: postgres.Sql, checkScope: boolean): postgres.Sql =>
    new Proxy(target, {
      get(object, property, receiver) {
        if (property === 'begin' || property === 'savepoint') {
          return (...args: unknown[]) => {
            const callback = args.pop() as (inner: postgres.Sql) => unknown;
            const method = Reflect.get(object, property, receiver) as (...a: unknown[]) => unknown;
            return method.call(object, ...args, (inner: postgres.Sql) => callback(guard(inner, false)));
          };
        }
        if (property === 'unsafe') {
          return (query: string, params?: unknown[], queryOptions?: postgres.UnsafeQueryOptions) => {
            if (checkScope && scopeChecks) assertOutsideTransaction(root);
            return object.unsafe(query, params as postgres.ParameterOrJSON<never>[], {
              ...queryOptions,
              prepare,
            });
          };
        }
        return Reflect.get(object, property, receiver);
      },
    });
  const guarded = guard(client, true);
  const orm = drizzle({ client: guarded });
  const watchers = new LocalWatchers();
  let listener: InvalidationListener | null = null;
  const root: OpenStore = {
    engine: 'postgres',
    t,
    inTransaction: false,
    orm: orm as unknown as Orm,
    async transaction(fn) {
      if (scopeChecks) assertOutsideTransaction(root);
      const pending = new PendingInvalidations();
      const value = await withinTransaction(
        root,
        () => orm.transaction((tx) => inHandle(tx as Orm, t, watchers, pending, fn)),
        scopeChecks,
      );
      pending.deliverTo(watchers);
      return value;
    },
    async invalidate(subject) {
      watchers.deliver(subject);
      await client`select pg_notify(${INVALIDATION_CHANNEL}, ${watchers.payload(subject)})`;
    },
    watchInvalidations(handler) {
      const remove = watchers.add(handler);
      listener ??= new InvalidationListener(url, watchers);
      void listener.start();
      const own = listener;
      return {
        check: () => own.live,
        ready: own.listening,
        async stop() {
          remove();
        },
      };
    },
    async close() {
      await listener?.stop();
      await client.end({ timeout: 5 });
    },
    // postgres.js keeps one extra connection for LISTEN, re-listening after a reconnect.
    async listen(channel, handler) {
      const { unlisten } = await client.listen(channel, handler);
      return unlisten;
    },
    async notify(channel, payload) {
      await client.notify(channel, payload);
    },
  };
  return root;
}

/**
 * Runs `fn` with a handle on the transaction `tx`. postgres.js would run a leaked handle's queries on
 * a pooled connection, outside any transaction: once `fn` has settled, the handle refuses to be used.
 */
async function inHandle<T>(
  tx: Orm,
  t: Tables,
  watchers: LocalWatchers,
  pending: PendingInvalidations,
  fn: (store: Store) => Promise<T>,
): Promise<T> {
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
      return nestable.transaction((nested) => inHandle(nested, t, watchers, pending, inner));
    },
    async invalidate(subject) {
      if (!open) throw new TransactionEndedError();
      pending.add(subject);
      // NOTIFY inside a transaction is delivered when it commits, and not at all if it rolls back.
      await tx.execute(sql`select pg_notify(${INVALIDATION_CHANNEL}, ${watchers.payload(subject)})`);
    },
  };
  try {
    return await fn(store);
  } finally {
    open = false;
  }
}
