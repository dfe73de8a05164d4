import { closeDatabase, openDatabase } from '../client.js';
import { migrate } from '../migrate.js';
import { migratePostgres } from '../postgres/migrate.js';
import { openPostgresStore, type PostgresStoreOptions } from './postgres.js';
import { openSqliteStore } from './sqlite.js';
import type { OpenStore } from './types.js';

export interface StoreLocation {
  /** `postgres://…` or `postgresql://…`: PostgreSQL. Unset: the SQLite file at databasePath. */
  databaseUrl?: string | undefined;
  databasePath: string;
}

export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}

/** Applies the engine's pending migrations, then opens the store. */
export async function openMigratedStore(
  location: StoreLocation,
  options: PostgresStoreOptions = {},
): Promise<{ store: OpenStore; applied: number }> {
  if (location.databaseUrl) {
    const { applied } = await migratePostgres(location.databaseUrl);
    return { store: openPostgresStore(location.databaseUrl, options), applied };
  }
  // SQLite's migrator is synchronous and runs on its own short-lived connection.
  const db = openDatabase(location.databasePath);
  let applied: number;
  try {
    applied = migrate(db).applied;
  } finally {
    closeDatabase(db);
  }
  return {
    store: openSqliteStore(location.databasePath, { ...options, checkpointsOffThread: true }),
    applied,
  };
}
