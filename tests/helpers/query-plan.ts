import { sql } from 'drizzle-orm';
import type { Store } from '../../src/db/store/index.js';

/**
 * The engine's plan for a query, as text: SQLite's EXPLAIN QUERY PLAN, or PostgreSQL's EXPLAIN with
 * sequential scans priced out (`enable_seqscan = off`, for this transaction only: a test table is
 * small enough to be read whole, so only then does the plan show whether an index can serve the query).
 */
export async function queryPlan(db: Store, query: { sql: string; params: unknown[] }): Promise<string> {
  if (db.engine === 'sqlite') {
    const raw = db.orm as unknown as { values(q: unknown): Promise<unknown[][]> };
    const rows = await raw.values(sql.raw(`EXPLAIN QUERY PLAN ${inline(query)}`));
    return rows.map((r) => String(r[3])).join('\n');
  }
  return db.transaction(async (tx) => {
    const exec = tx.orm as unknown as { execute(q: unknown): Promise<Record<string, unknown>[]> };
    await exec.execute(sql.raw('SET LOCAL enable_seqscan = off'));
    const rows = await exec.execute(sql.raw(`EXPLAIN ${inline(query)}`));
    return rows.map((r) => String(Object.values(r)[0])).join('\n');
  });
}

/** The query with its parameters written in as literals (the plan of exactly this statement). */
function inline(query: { sql: string; params: unknown[] }): string {
  let i = 0;
  const literal = (v: unknown) =>
    typeof v === 'number' ? String(v) : `'${String(v).replaceAll("'", "''")}'`;
  return query.sql
    .replace(/\$(\d+)/g, (_, n: string) => literal(query.params[Number(n) - 1]))
    .replace(/\?/g, () => literal(query.params[i++]));
}
