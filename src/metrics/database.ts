import { sql } from 'drizzle-orm';
import { Gauge } from 'prom-client';
import type { Store } from '../db/store/index.js';
import { scalar } from '../db/store/query.js';
import { registry } from './registry.js';

export const databaseSize = new Gauge({
  name: 'database_size_bytes',
  help: 'Size of the database, measured at each scrape: SQLite page_count * page_size (without the WAL file), or PostgreSQL pg_database_size.',
  registers: [registry],
});

/** Measures the database now: SQLite's two pragmas, or PostgreSQL's size function; no table scan. */
export async function measureDatabase(db: Store): Promise<void> {
  const size = await scalar(
    db,
    db.engine === 'postgres'
      ? sql`SELECT pg_database_size(current_database())`
      : sql`SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()`,
  );
  databaseSize.set(Number(size));
}
