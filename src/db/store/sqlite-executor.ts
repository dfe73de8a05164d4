import type Database from 'better-sqlite3';

/** What drizzle's sqlite-proxy driver asks for and expects back (rows as arrays of column values). */
export type ProxyMethod = 'run' | 'all' | 'values' | 'get';
export interface ProxyResult {
  rows: unknown[];
}

/** Above this many distinct SQL texts the oldest prepared statement is dropped. */
const STATEMENT_CACHE_SIZE = 500;

/**
 * Runs drizzle's SQL on one better-sqlite3 connection, synchronously. Statements are prepared once per
 * SQL text (drizzle builds the same text for the same query shape), which better-sqlite3 does not do
 * by itself; reading statements return rows as arrays, the form the proxy driver maps to objects.
 */
export class SqliteExecutor {
  private readonly statements = new Map<string, Database.Statement>();

  constructor(readonly connection: Database.Database) {}

  execute(sql: string, params: unknown[], method: ProxyMethod): ProxyResult {
    const statement = this.prepare(sql);
    if (!statement.reader) {
      statement.run(params);
      return { rows: [] };
    }
    if (method === 'get') return { rows: statement.get(params) as unknown[] };
    return { rows: statement.all(params) as unknown[] };
  }

  /** Whether the statement only reads (sqlite3_stmt_readonly: no INSERT, UPDATE, DELETE or DDL). */
  readsOnly(sql: string): boolean {
    return this.prepare(sql).readonly;
  }

  /** One statement of transaction control (BEGIN, COMMIT, SAVEPOINT…), not cached. */
  control(sql: string): void {
    this.connection.exec(sql);
  }

  private prepare(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (statement) return statement;
    statement = this.connection.prepare(sql);
    if (statement.reader) statement.raw(true);
    if (this.statements.size >= STATEMENT_CACHE_SIZE) {
      const oldest = this.statements.keys().next().value;
      if (oldest !== undefined) this.statements.delete(oldest);
    }
    this.statements.set(sql, statement);
    return statement;
  }
}
