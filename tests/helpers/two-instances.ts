import { join } from 'node:path';
import { expect } from 'vitest';
import { EVERYTHING, type OpenStore, openPostgresStore } from '../../src/db/store/index.js';
import { asTestServer, type Gateway, spawnGateway } from './gateway.js';
import { freshPostgresDatabase, type TestDatabase } from './postgres.js';
import { openRawSql, type RawSql } from './raw-sql.js';
import { RoundRobinProxy } from './round-robin.js';
import { type Sandbox, startSandbox } from './sandbox-process.js';
import type { TestServer } from './server.js';
import { tempDir } from './temp.js';

/** Two server processes on one fresh PostgreSQL database behind a round-robin balancer. */
export interface TwoInstances {
  database: TestDatabase;
  /** The test's own store and plain SQL on that database. */
  store: OpenStore;
  sql: RawSql;
  /** One sandbox process both instances use as their upstream. */
  sandbox: Sandbox;
  proxy: RoundRobinProxy;
  instances: Gateway[];
  /** The balancer seen as a TestServer (PUBLIC_URL is its address), for the oauth-http helpers. */
  view: TestServer;
  /** A new process in place of instance `index` (one that was stopped), behind the balancer again. */
  replace(index: number): Promise<Gateway>;
  close(): Promise<void>;
}

/**
 * Starts the sandbox, the balancer (first, so PUBLIC_URL is its address: the OAuth issuer every
 * instance names), then two instances of src/main.ts with DATABASE_URL, behind it. `env` is added to
 * both instances' environment.
 */
export async function startTwoInstances(env: Record<string, string> = {}): Promise<TwoInstances> {
  const dir = tempDir('sim-two-');
  // The configuration wants a path; with DATABASE_URL it is not used.
  const databasePath = join(dir.path, 'unused.db');
  const database = await freshPostgresDatabase({ migrated: true });
  const sandbox = await startSandbox();
  const proxy = await new RoundRobinProxy(['http://127.0.0.1:9', 'http://127.0.0.1:9']).start();
  const spawn = () =>
    spawnGateway({
      databasePath,
      databaseUrl: database.url,
      publicUrl: proxy.url,
      env: {
        UPSTREAM_SEARCH_URL: sandbox.searchUrl,
        UPSTREAM_AGENT_URL: sandbox.agentUrl,
        TRUST_PROXY: 'true',
        ...env,
      },
    });
  const instances = await Promise.all([spawn(), spawn()]);
  for (const [i, g] of instances.entries()) proxy.setBackend(i, g.url);
  const store = openPostgresStore(database.url);
  const location = { databasePath, databaseUrl: database.url };
  const raw = openRawSql(location);
  // As in tests/helpers/server.ts: a write made here tells both instances' caches by NOTIFY.
  const sql: RawSql = {
    ...raw,
    run: async (query, ...params) => {
      await raw.run(query, ...params);
      await store.invalidate(EVERYTHING);
    },
  };
  return {
    database,
    store,
    sql,
    sandbox,
    proxy,
    instances,
    view: asTestServer(proxy.url, store, proxy.url, location, sql),
    async replace(index) {
      const g = await spawn();
      instances[index] = g;
      proxy.setBackend(index, g.url);
      return g;
    },
    async close() {
      for (const g of instances) g.proc.kill('SIGKILL');
      await Promise.all(instances.map((g) => g.proc.exit()));
      await proxy.close();
      await sandbox.stop();
      await sql.close();
      await store.close();
      await database.drop();
      dir.remove();
    },
  };
}

/** A 2025-era JSON-RPC POST to one instance's (or the balancer's) /mcp with `token`. */
export function postMcp(
  baseUrl: string,
  token: string,
  body: unknown,
  signal?: AbortSignal,
): Promise<Response> {
  return fetch(`${baseUrl}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${token}`,
      'mcp-protocol-version': '2025-06-18',
    },
    body: JSON.stringify(body),
    ...(signal ? { signal } : {}),
  });
}

/** A 2025-era ping to one instance (or the balancer) with `token`: the HTTP status it answers. */
export async function pingStatus(baseUrl: string, token: string): Promise<number> {
  const res = await postMcp(baseUrl, token, { jsonrpc: '2.0', id: 1, method: 'ping' });
  await res.arrayBuffer();
  return res.status;
}

/**
 * Waits, a second at most, until `ping` answers 401: another instance's cached bearer lookup ends when
 * the revoking commit's NOTIFY is delivered to it, milliseconds later, not in the same instant.
 */
export async function untilRefused(ping: () => Promise<number>): Promise<void> {
  const deadline = Date.now() + 1_000;
  let status = await ping();
  while (status !== 401 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    status = await ping();
  }
  expect(status).toBe(401);
}
