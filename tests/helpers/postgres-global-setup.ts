import type { TestProject } from 'vitest/node';
import { migratePostgres } from '../../src/db/postgres/migrate.js';
import { createDatabase, databaseUrl, MIGRATED_TEMPLATE, startPostgresCluster } from './postgres-cluster.js';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresAdminUrl: string;
  }
}

/**
 * vitest globalSetup: one throw-away PostgreSQL cluster for the whole run, stopped at its end, with a
 * database migrated once that tests clone (a copy takes tens of milliseconds, migrating hundreds).
 */
export default async function setup(project: TestProject): Promise<() => void> {
  const cluster = await startPostgresCluster();
  try {
    await createDatabase(cluster.adminUrl, MIGRATED_TEMPLATE);
    await migratePostgres(databaseUrl(cluster.adminUrl, MIGRATED_TEMPLATE));
  } catch (error) {
    cluster.stop();
    throw error;
  }
  // If the run is interrupted, teardown may not run: stop the server as this process exits.
  const onExit = () => cluster.stop();
  process.once('exit', onExit);
  project.provide('postgresAdminUrl', cluster.adminUrl);
  return () => {
    process.off('exit', onExit);
    cluster.stop();
  };
}
