/**
 * Shared pieces of the reliability suite: an in-process server with chosen socket limits, spawned
 * gateway processes sharing one database file, and small HTTP helpers.
 */
import { connect, createServer as createTcpServer } from 'node:net';
import type { AppDeps } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import type { Engine, OpenStore } from '../../src/db/store/index.js';
import { SecretBox } from '../../src/security/secrets.js';
import type { ServerLimits } from '../../src/server.js';
import { type Spawned, spawnProcess } from './process.js';
import type { RawSql } from './raw-sql.js';
import { startTestServer, type TestServer } from './server.js';
import { TEST_SECRET_KEY } from './temp.js';

export interface ServerOptions {
  env?: Record<string, string>;
  upstream?: { searchUrl: string; agentUrl: string };
  limits?: Partial<ServerLimits>;
  mcpOptions?: AppDeps['mcpOptions'];
}

/** startTestServer with the upstream configured as in production (UPSTREAM_* set) and quieter logs. */
export function startServer(options: ServerOptions = {}): Promise<TestServer> {
  return startTestServer({
    upstream: options.upstream ?? { searchUrl: 'http://127.0.0.1:9', agentUrl: 'http://127.0.0.1:9' },
    upstreamConfigured: true,
    env: { LOG_LEVEL: 'warn', ...options.env },
    ...(options.limits ? { limits: options.limits } : {}),
    ...(options.mcpOptions ? { mcpOptions: options.mcpOptions } : {}),
  });
}

/** Rows of `table` (with an optional WHERE clause after the name), through plain SQL. */
export async function count(sql: RawSql, table: string): Promise<number> {
  const row = await sql.get<{ n: number | string }>(`SELECT count(*) AS n FROM ${table}`);
  return Number(row?.n ?? 0);
}

/** A port free right now (bound and released), for processes that must come back on the same one. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createTcpServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

export interface Gateway {
  proc: Spawned;
  port: number;
  url: string;
  /** migrationsApplied from the process's "database ready" log line. */
  migrationsApplied: number;
}

/**
 * The real entry point (src/main.ts) in its own process, on `port` (0: any), against `databasePath`.
 * Resolves once it logs "listening".
 */
export async function spawnGateway(options: {
  databasePath: string;
  /** PostgreSQL instead of the SQLite file: every gateway given it shares the one database. */
  databaseUrl?: string;
  publicUrl: string;
  port?: number;
  env?: Record<string, string>;
}): Promise<Gateway> {
  const proc = spawnProcess('node', ['--import', 'tsx', 'src/main.ts'], {
    NODE_ENV: 'development',
    PORT: String(options.port ?? 0),
    HOST: '127.0.0.1',
    PUBLIC_URL: options.publicUrl,
    DATABASE_PATH: options.databasePath,
    ...(options.databaseUrl ? { DATABASE_URL: options.databaseUrl } : {}),
    SECRET_KEY: TEST_SECRET_KEY,
    LOG_LEVEL: 'info',
    UPSTREAM_SEARCH_URL: 'http://127.0.0.1:9',
    UPSTREAM_AGENT_URL: 'http://127.0.0.1:9',
    ...options.env,
  });
  try {
    const line = await proc.waitForLine(/"msg":"listening"/, 30_000);
    const port = (JSON.parse(line) as { port: number }).port;
    const ready = proc
      .stdout()
      .split('\n')
      .find((l) => l.includes('"msg":"database ready"'));
    const migrationsApplied = ready
      ? (JSON.parse(ready) as { migrationsApplied: number }).migrationsApplied
      : -1;
    return { proc, port, url: `http://127.0.0.1:${port}`, migrationsApplied };
  } catch (error) {
    proc.kill('SIGKILL');
    throw error;
  }
}

/** A TestServer-shaped view of a spawned gateway, for the oauth-http helpers (url, config, db). */
export function asTestServer(
  url: string,
  db: OpenStore,
  publicUrl: string,
  location: { databasePath: string; databaseUrl?: string },
  sql: RawSql,
): TestServer {
  const config = loadConfig({
    PUBLIC_URL: publicUrl,
    SECRET_KEY: TEST_SECRET_KEY,
    DATABASE_PATH: location.databasePath,
    ...(location.databaseUrl ? { DATABASE_URL: location.databaseUrl } : {}),
  });
  return {
    url,
    config,
    db,
    engine: db.engine as Engine,
    sql,
    app: undefined as never,
    secrets: new SecretBox(config.secretKeys),
    dataDir: '',
    logs: [],
    close: async () => {},
  };
}

/**
 * Sends raw bytes over a fresh connection, then keeps sending `drip` bytes one every `dripMs`,
 * and resolves with what the server answered and when it closed the connection.
 */
export function rawExchange(
  port: number,
  head: string | Buffer,
  options: { drip?: string; dripMs?: number; giveUpMs?: number } = {},
): Promise<{ response: string; closedAfterMs: number; closedByServer: boolean }> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = connect(port, '127.0.0.1');
    let response = '';
    let dripIndex = 0;
    let timer: NodeJS.Timeout | undefined;
    const giveUp = setTimeout(() => {
      finish(false);
      socket.destroy();
    }, options.giveUpMs ?? 10_000);
    let done = false;
    const finish = (closedByServer: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(giveUp);
      if (timer) clearInterval(timer);
      resolve({ response, closedAfterMs: Date.now() - started, closedByServer });
    };
    socket.on('connect', () => {
      if (head.length) socket.write(head);
      if (options.drip) {
        const drip = options.drip;
        timer = setInterval(() => {
          if (!socket.destroyed && socket.writable) socket.write(drip[dripIndex++ % drip.length] ?? 'x');
        }, options.dripMs ?? 1_000);
      }
    });
    socket.on('data', (d) => {
      response += d.toString('latin1');
    });
    socket.on('error', () => {});
    socket.on('close', () => finish(true));
  });
}
