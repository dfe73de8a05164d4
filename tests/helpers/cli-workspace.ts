import { join } from 'node:path';
import type { OpenStore } from '../../src/db/store/index.js';
import { testEngine } from './engine.js';
import { ROOT } from './process.js';
import { migratedTestStore } from './stores.js';
import { TEST_SECRET_KEY } from './temp.js';

export interface CliWorkspace {
  /** What points the CLI at the database: DATABASE_PATH (SQLite) or DATABASE_URL, and SECRET_KEY. */
  env: Record<string, string>;
  /** The same database, for the test to set up and check. */
  db: OpenStore;
  close(): Promise<void>;
}

/** A fresh migrated database of the run's engine, and the environment that points the CLI at it. */
export async function cliWorkspace(): Promise<CliWorkspace> {
  const ctx = await migratedTestStore(testEngine());
  const { databasePath, databaseUrl } = ctx.location;
  return {
    env: {
      DATABASE_PATH: databasePath || join(ROOT, 'no-such-folder', 'unused.db'),
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
      SECRET_KEY: TEST_SECRET_KEY,
    },
    db: ctx.store,
    close: () => ctx.cleanup(),
  };
}
