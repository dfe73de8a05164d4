import { join } from 'node:path';
import { closeDatabase, openDatabase } from '../../src/db/client.js';
import { migrate } from '../../src/db/migrate.js';
import { type Engine, type OpenStore, openPostgresStore, openSqliteStore } from '../../src/db/store/index.js';
import { freshPostgresDatabase } from './postgres.js';
import { tempDir } from './temp.js';

/** Every engine, for `describe.each(ENGINES)`: a test of the data layer runs on both. */
export const ENGINES: readonly Engine[] = ['sqlite', 'postgres'];

export interface TestStore {
  store: OpenStore;
  /** What the server would be given: the SQLite file's path, or the PostgreSQL URL. */
  location: { databasePath: string; databaseUrl?: string };
  /** Another store on the same database (another process would open its own). */
  reopen(options?: { max?: number; scopeChecks?: boolean }): OpenStore;
  cleanup(): Promise<void>;
}

/** A migrated, empty database of `engine` and a store on it. */
export async function migratedTestStore(engine: Engine, options: { max?: number } = {}): Promise<TestStore> {
  const opened: OpenStore[] = [];
  const track = (store: OpenStore) => {
    opened.push(store);
    return store;
  };
  if (engine === 'sqlite') {
    const dir = tempDir('sim-store-');
    const databasePath = join(dir.path, 'store.db');
    const db = openDatabase(databasePath);
    migrate(db);
    closeDatabase(db);
    return {
      store: track(openSqliteStore(databasePath)),
      location: { databasePath },
      reopen: (again = {}) => track(openSqliteStore(databasePath, again)),
      async cleanup() {
        for (const s of opened) await s.close();
        dir.remove();
      },
    };
  }
  const database = await freshPostgresDatabase({ migrated: true });
  return {
    store: track(openPostgresStore(database.url, options)),
    location: { databasePath: '', databaseUrl: database.url },
    reopen: (again = options) => track(openPostgresStore(database.url, again)),
    async cleanup() {
      for (const s of opened) await s.close();
      await database.drop();
    },
  };
}
