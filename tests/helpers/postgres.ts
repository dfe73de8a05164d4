import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { inject } from 'vitest';
import { createDatabase, databaseUrl, MIGRATED_TEMPLATE } from './postgres-cluster.js';

export interface TestDatabase {
  /** postgres:// URL of a new database of the run's cluster. */
  url: string;
  drop(): Promise<void>;
}

/**
 * A new database in the cluster vitest's globalSetup started (one per test, file or server): empty,
 * or with `migrated`, a copy of the database migrated once at the start of the run.
 */
export async function freshPostgresDatabase(options: { migrated?: boolean } = {}): Promise<TestDatabase> {
  const adminUrl = inject('postgresAdminUrl');
  const name = `t_${randomBytes(8).toString('hex')}`;
  await createDatabase(adminUrl, name, options.migrated ? MIGRATED_TEMPLATE : undefined);
  return {
    url: databaseUrl(adminUrl, name),
    async drop() {
      const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
      try {
        // WITH (FORCE) ends connections a test left open (PostgreSQL 13+).
        await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await admin.end();
      }
    },
  };
}
