import { Gauge } from 'prom-client';
import type { Db } from '../db/client.js';
import { registry } from './registry.js';

export const databaseSize = new Gauge({
  name: 'database_size_bytes',
  help: 'Size of the SQLite database (page_count * page_size), measured at each scrape; excludes the WAL file.',
  registers: [registry],
});

/** Measures the database now: two pragma reads, no table scan. */
export function measureDatabase(db: Db): void {
  const pageCount = db.$client.pragma('page_count', { simple: true }) as number;
  const pageSize = db.$client.pragma('page_size', { simple: true }) as number;
  databaseSize.set(pageCount * pageSize);
}
