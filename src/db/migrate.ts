import { fileURLToPath } from 'node:url';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import type { Db } from './client.js';

/** `migrations/` at the package root, whether running from src/ (tsx) or dist/src/ (compiled). */
export const MIGRATIONS_FOLDER = fileURLToPath(
  new URL(
    import.meta.url.includes('/dist/src/') ? '../../../migrations' : '../../migrations',
    import.meta.url,
  ),
);

/**
 * Applies the committed drizzle-kit migrations, keeping drizzle's bookkeeping table so drizzle-kit
 * still understands the database.
 *
 * Unlike drizzle's own migrator (which reads the last applied migration before its deferred BEGIN),
 * the check and the apply happen inside one `BEGIN IMMEDIATE`: a second process starting at the same
 * moment waits for the write lock, then sees the migrations already applied and does nothing.
 */
export function migrate(db: Db, folder = MIGRATIONS_FOLDER): { applied: number } {
  const migrations = readMigrationFiles({ migrationsFolder: folder });
  const sqlite = db.$client;
  sqlite.exec(
    'CREATE TABLE IF NOT EXISTS "__drizzle_migrations" (id SERIAL PRIMARY KEY, hash text NOT NULL, created_at numeric)',
  );
  const apply = sqlite.transaction(() => {
    const last = sqlite
      .prepare('SELECT created_at FROM "__drizzle_migrations" ORDER BY created_at DESC LIMIT 1')
      .get() as { created_at: number } | undefined;
    let applied = 0;
    for (const migration of migrations) {
      if (last && Number(last.created_at) >= migration.folderMillis) continue;
      for (const statement of migration.sql) {
        if (statement.trim()) sqlite.exec(statement);
      }
      sqlite
        .prepare('INSERT INTO "__drizzle_migrations" ("hash", "created_at") VALUES (?, ?)')
        .run(migration.hash, migration.folderMillis);
      applied++;
    }
    return applied;
  });
  return { applied: apply.immediate() };
}
