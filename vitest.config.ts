import { defineConfig } from 'vitest/config';

/**
 * Tests that never open a database (pure functions, the upstream emulator, documents), and those that
 * already run on both engines themselves (tests/db: `describe.each(ENGINES)`) or check one engine's
 * own file (crash safety: SQLite's integrity after SIGKILL): run once, in the sqlite project. Every
 * other test file runs in both projects, so a new database-touching test is on both engines unless
 * listed here.
 */
const ONCE = [
  'tests/architecture/**',
  'tests/db/**',
  'tests/docs/**',
  'tests/sandbox/**',
  'tests/security/**',
  'tests/upstream/**',
  'tests/process/**',
  // Spawned servers on their own SQLite files, read through what they export and print.
  'tests/telemetry/**',
  // The stdio server opens no database; the hosted server it is compared with answers alike on either.
  'tests/stdio/**',
  'tests/http/security-headers.test.ts',
  'tests/cli/changelog.test.ts',
  // Starts its own SQLite server: a stopped pass's worker thread exists on SQLite only.
  'tests/housekeeping/pass-stopped.test.ts',
  'tests/housekeeping/wal-steps.test.ts',
  'tests/cli/readme.test.ts',
  // The install files (manifest.json, server.json) and the package packed and installed from it.
  'tests/package/**',
  'tests/mcp/catalog/json-schema.test.ts',
  'tests/mcp/catalog/arg-words.test.ts',
  'tests/oauth/document-fetches.test.ts',
  'tests/mcp/prompts/prompt-arguments.test.ts',
  'tests/mcp/results/shape.test.ts',
  'tests/mcp/results/text-format.test.ts',
  'tests/mcp/results/summary-truth.test.ts',
  'tests/mcp/results/interactions-truth.test.ts',
  // The preview memory is the process's, whatever the engine.
  'tests/mcp/results/preview-since.test.ts',
  'tests/mcp/tools/preview-memory.test.ts',
  'tests/mcp/results/untrusted-clean.test.ts',
  'tests/mcp/sdk-bypass/output-check.test.ts',
  'tests/mcp/sdk-bypass/direct-replay.test.ts',
  'tests/mcp/sdk-bypass/sdk-bypass-contract.test.ts',
  'tests/mcp/tasks/task-view.test.ts',
  // How results show typed text: the same on either engine, whose team policy tests/teams covers on both.
  'tests/mcp/results/teammate-text.test.ts',
  'tests/mcp/tasks/repeated-reads.test.ts',
  'tests/mcp/waiting/wait.test.ts',
  // A connection's toolsets from its URL and headers: nothing of it is read from the database.
  'tests/mcp/tools/toolsets.test.ts',
  // The clients' side of long work: reuse's database rules run on both engines in recent-submits.
  'tests/mcp/tools/long-work.test.ts',
  // Tasks against the synchronous call and against the SDK's own bytes, and through the extension's
  // client: the tasks table's rules run on both engines in task-store and tasks.
  'tests/mcp/sdk-bypass/task-wire.test.ts',
  'tests/mcp/tasks/tasks-client.test.ts',
  // The extension's methods refused without its declaration, before any task is read: the wire alone.
  'tests/mcp/tasks/undeclared-methods.test.ts',
  'tests/metrics/config.test.ts',
  'tests/metrics/readme.test.ts',
  'tests/oauth/ssrf.test.ts',
  'tests/teams/audit-words.test.ts',
  'tests/housekeeping/batch-size.test.ts',
  'tests/web/cookies.test.ts',
  'tests/web/next.test.ts',
  'tests/web/snippets.test.ts',
  'tests/reliability/crash-safety.test.ts',
  // A gateway process killed and started again on its SQLite file (two instances cover PostgreSQL).
  'tests/reliability/task-restart.test.ts',
  // Layout at phone and desktop widths (overflow, axe, screenshots): the same HTML on either engine,
  // whose data paths the pages' own tests cover on both. Run once, they keep CI's whole run under its
  // 20 minutes (they were 440 s of its ~1,560 s of test time on both engines).
  'tests/web/layout.test.ts',
  'tests/web/team-layout.test.ts',
  // SQLite and PostgreSQL by nature, whatever the project: two instances on one PostgreSQL database,
  // PostgreSQL out of reach, and the copy from a SQLite file into PostgreSQL.
  'tests/reliability/two-instances.test.ts',
  'tests/reliability/two-instances-oauth.test.ts',
  'tests/reliability/task-limits-two-instances.test.ts',
  'tests/reliability/database-outage.test.ts',
  'tests/cli/copy.test.ts',
  'tests/cli/copy-live.test.ts',
];

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts', 'tests/**/*.test.tsx'],
    environment: 'node',
    // Integration tests start real servers and browsers; give them room on a 2-core machine.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 2,
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
