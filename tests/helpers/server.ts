import { join } from 'node:path';
import type { Hono } from 'hono';
import { type AppDeps, createApp } from '../../src/app.js';
import { type Config, loadConfig } from '../../src/config.js';
import { type Engine, EVERYTHING, type OpenStore, openMigratedStore } from '../../src/db/store/index.js';
import type { AppEnv } from '../../src/http/env.js';
import { createConfiguredLogger } from '../../src/logger.js';
import { SecretBox } from '../../src/security/secrets.js';
import { type FetchHandler, listen, type ServerLimits } from '../../src/server.js';
import { testEngine } from './engine.js';
import { freshPostgresDatabase } from './postgres.js';
import { openRawSql, type RawSql } from './raw-sql.js';
import { TEST_SECRET_KEY, tempDir } from './temp.js';

export interface TestServer {
  url: string;
  config: Config;
  /** The server's own store (the test reads and writes through it, as the server does). */
  db: OpenStore;
  engine: Engine;
  /**
   * Plain SQL on the same database (its own connection), for checks below the data-access functions;
   * `run` then tells the server's caches that anything may have changed.
   */
  sql: RawSql;
  app: Hono<AppEnv>;
  secrets: SecretBox;
  dataDir: string;
  /** Every log line the server wrote, parsed. */
  logs: Array<Record<string, unknown>>;
  close(): Promise<void>;
}

export interface TestServerOptions {
  env?: Record<string, string>;
  /**
   * Upstream base URLs; defaults to unreachable addresses (tests that call upstream pass a sandbox).
   * Like `npm start` with no upstream configured, the server then runs in sandbox mode, talking to
   * these URLs, unless `upstreamConfigured` says they came from UPSTREAM_* (the production shape).
   */
  upstream?: { searchUrl: string; agentUrl: string };
  upstreamConfigured?: boolean;
  /** A CA certificate (PEM) to trust when fetching client metadata documents. */
  cimdCa?: string;
  /** Socket limits (header/request/keep-alive timeouts) for this test's server. */
  limits?: Partial<ServerLimits>;
  /** Tool-layer waits and polling for this test (default: the production values). */
  mcpOptions?: AppDeps['mcpOptions'];
  /** The database engine (default: the run's, TEST_ENGINE). */
  engine?: Engine;
  /** A PostgreSQL database to use instead of a fresh one (several servers sharing it; not dropped). */
  databaseUrl?: string;
}

/**
 * The real app on a real loopback port with a real database (a SQLite file, or a fresh PostgreSQL
 * database of the run's cluster), in this process so a test can also read the database. The port is
 * bound first so PUBLIC_URL (the OAuth issuer) carries the real port.
 */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const engine = options.engine ?? (options.databaseUrl ? 'postgres' : testEngine());
  const dir = tempDir('sim-server-');
  const database =
    engine === 'postgres' && !options.databaseUrl ? await freshPostgresDatabase({ migrated: true }) : null;
  const databaseUrl = options.databaseUrl ?? database?.url;
  let target: FetchHandler = { fetch: () => new Response('starting', { status: 503 }) };
  const server = await listen(
    { fetch: (request, env) => target.fetch(request, env) },
    0,
    '127.0.0.1',
    options.limits,
  );
  const url = `http://localhost:${server.port}`;
  const config = loadConfig({
    DATABASE_PATH: join(dir.path, 'test.db'),
    ...(databaseUrl ? { DATABASE_URL: databaseUrl, DATABASE_POOL_SIZE: '4' } : {}),
    PUBLIC_URL: url,
    SECRET_KEY: TEST_SECRET_KEY,
    LOG_LEVEL: 'debug',
    SANDBOX_SPEED: 'instant',
    ...(options.upstream && options.upstreamConfigured
      ? { UPSTREAM_SEARCH_URL: options.upstream.searchUrl, UPSTREAM_AGENT_URL: options.upstream.agentUrl }
      : {}),
    ...options.env,
  });
  const logs: Array<Record<string, unknown>> = [];
  const logger = createConfiguredLogger(config, {
    write: (line: string) => {
      logs.push(JSON.parse(line) as Record<string, unknown>);
    },
  });
  const { store: db } = await openMigratedStore(
    { databaseUrl: config.databaseUrl ?? undefined, databasePath: config.databasePath },
    { max: config.databasePoolSize },
  );
  const raw = openRawSql(config);
  // A write made here is one no write path announced. The server's caches (the bearer check) hear of
  // it as they hear of every write path's (Store.invalidate); otherwise a PostgreSQL row changed by
  // hand shows only when a cached answer expires (ARCHITECTURE.md, "Caches over the database").
  const sql: RawSql = {
    ...raw,
    run: async (query, ...params) => {
      await raw.run(query, ...params);
      await db.invalidate(EVERYTHING);
    },
  };
  const secrets = new SecretBox(config.secretKeys);
  const deps: AppDeps = {
    config,
    db,
    logger,
    secrets,
    ...(options.cimdCa ? { cimdCa: options.cimdCa } : {}),
    ...(options.mcpOptions ? { mcpOptions: options.mcpOptions } : {}),
    upstream: options.upstream ?? { searchUrl: 'http://127.0.0.1:9', agentUrl: 'http://127.0.0.1:9' },
  };
  const { app, ready, close: closeApp } = createApp(deps);
  await ready;
  target = app;
  return {
    url,
    config,
    db,
    engine,
    sql,
    app,
    secrets,
    dataDir: dir.path,
    logs,
    async close() {
      await closeApp();
      await server.close(1_000);
      await db.close();
      await sql.close();
      await database?.drop();
      dir.remove();
    },
  };
}
