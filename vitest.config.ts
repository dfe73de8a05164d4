import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts', 'tests/**/*.test.tsx'],
    environment: 'node',
    // One throw-away PostgreSQL cluster per run; tests take a fresh database of it (tests/helpers/postgres.ts).
    // The MCP Apps views are built from their sources first (tests/helpers/views-global-setup.ts).
    globalSetup: ['tests/helpers/views-global-setup.ts', 'tests/helpers/postgres-global-setup.ts'],
    // Integration tests start real servers and browsers; give them room on a 2-core machine.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 2,
  },
});
