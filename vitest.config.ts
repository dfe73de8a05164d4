import { defineConfig } from 'vitest/config';
import { engineSplit } from './tests/helpers/engine-split.js';

/**
 * Every test file runs in the sqlite project; the files that touch state whose behaviour differs by
 * engine run in the postgres project too. Which those are follows from where a file lives and what it
 * imports (tests/helpers/engine-split.ts, read once here; docs/testing.md): a file in a room whose code
 * keeps state in the database that starts a server or opens a database on the run's engine, unless it
 * picks its engine itself or looks at pages in a browser. A new test needs no entry here.
 */
const { once: ONCE } = engineSplit(import.meta.dirname);

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts', 'tests/**/*.test.tsx'],
    environment: 'node',
    // Integration tests start real servers and browsers; give them room on a 2-core machine.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 2,
    // A worker's files share its module cache: importing the server afresh for each of ~290 files was
    // about a third of the run's time. No test may depend on a module's state being new (docs/testing.md).
    isolate: false,
    // One project per database engine; TEST_ENGINE is what tests/helpers/engine.ts reads (the servers,
    // stores and fixtures of tests/helpers follow it). Each project starts one throw-away PostgreSQL
    // cluster for its run; tests take a fresh database of it (tests/helpers/postgres.ts).
    projects: [
      {
        extends: true,
        test: {
          name: 'sqlite',
          env: { TEST_ENGINE: 'sqlite' },
          // The MCP Apps views are built from their sources first, once for both projects.
          globalSetup: ['tests/helpers/views-global-setup.ts', 'tests/helpers/postgres-global-setup.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'postgres',
          env: { TEST_ENGINE: 'postgres' },
          exclude: ONCE,
          globalSetup: ['tests/helpers/postgres-global-setup.ts'],
        },
      },
    ],
  },
});
