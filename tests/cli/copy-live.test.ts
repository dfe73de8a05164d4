import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OpenStore, openMigratedStore, openPostgresStore } from '../../src/db/store/index.js';
import { lines, runCli } from '../helpers/cli.js';
import { asTestServer, freePort, type Gateway, spawnGateway } from '../helpers/gateway.js';
import {
  freshAddress,
  grantForClient,
  mcpStatus,
  registerClient,
  type SignedInUser,
  signedInUser,
  tokenRequest,
} from '../helpers/oauth-http.js';
import { freshPostgresDatabase, type TestDatabase } from '../helpers/postgres.js';
import { openRawSql, type RawSql } from '../helpers/raw-sql.js';
import { TEST_SECRET_KEY, tempDir } from '../helpers/temp.js';

/**
 * Moving a live deployment (docs/operations.md, "Moving to PostgreSQL"): a server on SQLite issues tokens through
 * its real endpoints; it stops; copy-to-postgres copies the file; a server on PostgreSQL, same
 * PUBLIC_URL and SECRET_KEY, accepts the tokens issued before the copy.
 */
const dir = tempDir('sim-copy-live-');
const databasePath = join(dir.path, 'live.db');
let database: TestDatabase;
let publicUrl: string;
let gateway: Gateway | null = null;
let store: OpenStore | null = null;
let sql: RawSql | null = null;

beforeAll(async () => {
  database = await freshPostgresDatabase();
  publicUrl = `http://127.0.0.1:${await freePort()}`;
});

afterAll(async () => {
  gateway?.proc.kill('SIGKILL');
  await gateway?.proc.exit();
  await sql?.close();
  await store?.close();
  await database?.drop();
  dir.remove();
});

const env = { TRUST_PROXY: 'true' };

describe('copy-to-postgres on a deployment in use', () => {
  it('tokens issued on SQLite before the copy work against the PostgreSQL-backed server', async () => {
    // 1. The SQLite deployment: a person, a registered app, a grant through /authorize and /token.
    gateway = await spawnGateway({ databasePath, publicUrl, env });
    store = (await openMigratedStore({ databasePath })).store;
    sql = openRawSql({ databasePath });
    const onSqlite = asTestServer(gateway.url, store, publicUrl, { databasePath }, sql);
    const user: SignedInUser = await signedInUser(onSqlite);
    const { client_id: clientId } = await registerClient(onSqlite, {}, freshAddress());
    const before = await grantForClient(onSqlite, user, clientId);
    const rotated = await grantForClient(onSqlite, user, clientId);
    expect(await mcpStatus(onSqlite, before.accessToken)).toBe(200);

    // 2. Stop it, then copy.
    gateway.proc.kill('SIGTERM');
    await gateway.proc.exit();
    gateway = null;
    await sql.close();
    await store.close();
    sql = null;
    store = null;
    const copy = await runCli(['copy-to-postgres'], {
      DATABASE_PATH: databasePath,
      DATABASE_URL: database.url,
      SECRET_KEY: TEST_SECRET_KEY,
    });
    expect(copy.stderr).toBe('');
    expect(copy.code).toBe(0);
    expect(lines(copy.stdout)).toEqual(expect.arrayContaining(['users: 1', 'oauth_grants: 1']));

    // 3. The PostgreSQL deployment, same PUBLIC_URL and SECRET_KEY.
    gateway = await spawnGateway({ databasePath, databaseUrl: database.url, publicUrl, env });
    store = openPostgresStore(database.url);
    sql = openRawSql({ databasePath, databaseUrl: database.url });
    const onPostgres = asTestServer(
      gateway.url,
      store,
      publicUrl,
      { databasePath, databaseUrl: database.url },
      sql,
    );
    // Both devices' access tokens, the session cookie (the browser stays signed in) and a refresh.
    expect(await mcpStatus(onPostgres, before.accessToken)).toBe(200);
    expect(await mcpStatus(onPostgres, rotated.accessToken)).toBe(200);
    const account = await fetch(`${gateway.url}/account`, {
      headers: { cookie: user.cookie },
      redirect: 'manual',
    });
    expect(account.status).toBe(200);
    const refreshed = await tokenRequest(onPostgres, {
      grant_type: 'refresh_token',
      refresh_token: before.refreshToken,
      client_id: clientId,
    });
    expect(refreshed.status).toBe(200);
    expect(await mcpStatus(onPostgres, refreshed.body.access_token as string)).toBe(200);
  });
});
