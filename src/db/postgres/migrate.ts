import { join } from 'node:path';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import postgres from 'postgres';
import { MIGRATIONS_FOLDER } from '../migrate.js';

/** drizzle-kit's output for PostgreSQL (drizzle.config.postgres.ts), beside SQLite's. */
export const POSTGRES_MIGRATIONS_FOLDER = join(MIGRATIONS_FOLDER, 'postgres');

/**
 * The key of the transaction-level advisory lock taken while migrating: any fixed 64-bit number no
 * other code uses (these are the ASCII bytes of "SIMCMIGR").
 */
export const MIGRATION_LOCK_KEY = 0x53494d434d494752n;

/**
 * Applies the committed PostgreSQL migrations in one transaction, keeping drizzle's bookkeeping
 * (`drizzle.__drizzle_migrations`, the table drizzle-kit's own pg migrator reads and writes).
 *
 * Instances starting together would race to create the same tables, so the transaction first takes
 * `pg_advisory_xact_lock`: the others wait there, and once the first commits (which releases the lock)
 * they find every migration recorded and apply nothing. DDL is transactional in PostgreSQL, so a
 * failing migration leaves the database as it was; migrations must therefore not use statements that
 * refuse to run in a transaction (CREATE INDEX CONCURRENTLY).
 */
export async function migratePostgres(
  url: string,
  folder = POSTGRES_MIGRATIONS_FOLDER,
): Promise<{ applied: number }> {
  const migrations = readMigrationFiles({ migrationsFolder: folder });
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const applied = await sql.begin(async (tx) => {
      await tx`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK_KEY.toString()}::bigint)`;
      await tx`CREATE SCHEMA IF NOT EXISTS drizzle`;
      await tx`CREATE TABLE IF NOT EXISTS drizzle.__drizzle_migrations (id SERIAL PRIMARY KEY, hash text NOT NULL, created_at bigint)`;
      const [last] = await tx<{ created_at: string }[]>`
        SELECT created_at FROM drizzle.__drizzle_migrations ORDER BY created_at DESC LIMIT 1`;
      let count = 0;
      for (const migration of migrations) {
        if (last && Number(last.created_at) >= migration.folderMillis) continue;
        for (const statement of migration.sql) {
          if (statement.trim()) await tx.unsafe(statement);
        }
        await tx`INSERT INTO drizzle.__drizzle_migrations (hash, created_at) VALUES (${migration.hash}, ${migration.folderMillis})`;
        count++;
      }
      return count;
    });
    return { applied };
  } finally {
    await sql.end({ timeout: 5 });
  }
}
