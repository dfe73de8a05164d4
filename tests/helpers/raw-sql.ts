import postgres from 'postgres';
import { openSqliteFile } from '../../src/db/client.js';

/**
 * Plain SQL against a test's database, on its own connection, for what a test checks or arranges below
 * the data-access functions (a row's exact columns, an expired timestamp). Written with `?` placeholders
 * and SQL both engines accept; on PostgreSQL they become $1, $2…, and 64-bit integers (timestamps,
 * counts) come back as numbers, as on SQLite. Booleans differ: SQLite stores 0/1.
 */
export interface RawSql {
  get<T = Record<string, unknown>>(query: string, ...params: unknown[]): Promise<T | undefined>;
  all<T = Record<string, unknown>>(query: string, ...params: unknown[]): Promise<T[]>;
  run(query: string, ...params: unknown[]): Promise<void>;
  close(): Promise<void>;
}

export function openRawSql(location: { databasePath: string; databaseUrl?: string | null }): RawSql {
  if (location.databaseUrl) return postgresRaw(location.databaseUrl);
  const db = openSqliteFile(location.databasePath);
  return {
    get: async (query, ...params) => db.prepare(query).get(...params) as never,
    all: async (query, ...params) => db.prepare(query).all(...params) as never,
    run: async (query, ...params) => {
      db.prepare(query).run(...params);
    },
    close: async () => {
      db.close();
    },
  };
}

function postgresRaw(url: string): RawSql {
  const client = postgres(url, {
    max: 1,
    onnotice: () => {},
    types: {
      int8: { to: 20, from: [20], parse: (v: string) => Number(v), serialize: (v: number) => String(v) },
    },
  });
  const numbered = (query: string) => {
    let n = 0;
    return query.replace(/\?/g, () => `$${++n}`);
  };
  const all = (query: string, params: unknown[]) =>
    client.unsafe(numbered(query), params as postgres.ParameterOrJSON<never>[]) as unknown as Promise<
      Record<string, unknown>[]
    >;
  return {
    get: async (query, ...params) => (await all(query, params))[0] as never,
    all: async (query, ...params) => (await all(query, params)) as never,
    run: async (query, ...params) => {
      await all(query, params);
    },
    close: () => client.end({ timeout: 5 }),
  };
}
