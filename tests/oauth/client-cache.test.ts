import { eq } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { clientSubject, grantSubject, openPostgresStore } from '../../src/db/store/index.js';
import { type ClientRow, ClientRowCache } from '../../src/oauth/clients/client-cache.js';
import {
  DCR_IDLE_TTL_MS,
  findClient,
  registerDynamicClient,
  touchClient,
} from '../../src/oauth/clients/repository.js';
import { purgeExpiredOAuth } from '../../src/oauth/purge.js';
import { heard } from '../helpers/bearer-fixture.js';
import { testEngine } from '../helpers/engine.js';
import { oauthFixture } from '../helpers/oauth-fixture.js';

/**
 * The client rows the token and revocation endpoints read are kept per store (one round trip
 * fewer per refresh grant on PostgreSQL); every write to a client row must reach the kept copy. A row
 * renamed through the store's own handle without an invalidation shows whether an answer came from
 * memory (the same connection: SQLite's data_version does not move, PostgreSQL sends no NOTIFY).
 */
const fx = oauthFixture();
const lookup = { cimd: { allowPrivateHosts: true }, refreshStaleDocument: false };
const closing: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const c of closing.splice(0)) await c.close();
});

let counter = 0;
async function dcrClient(now = Date.now()) {
  counter += 1;
  const { client } = await registerDynamicClient(
    fx.server.db,
    {
      client_name: `cache client ${counter}`,
      redirect_uris: ['http://localhost:3000/callback'],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    },
    now,
  );
  return client;
}

/** Renames the client through the store without telling any cache. */
async function renameQuietly(clientId: string, name: string) {
  const { db } = fx.server;
  await db.orm.update(db.t.oauthClients).set({ clientName: name }).where(eq(db.t.oauthClients.id, clientId));
}

const nameOf = async (clientId: string, now?: number) =>
  (await findClient(fx.server.db, clientId, lookup, now))?.clientName;

describe('the client cache of the token endpoint', () => {
  it('a client row is read once and then answered from memory, until a write names it', async () => {
    const client = await dcrClient();
    const name = client.clientName;
    expect(await nameOf(client.clientId)).toBe(name);
    await renameQuietly(client.clientId, 'renamed');
    expect(await nameOf(client.clientId)).toBe(name);
    await fx.server.db.invalidate(clientSubject(client.clientId));
    expect(await nameOf(client.clientId)).toBe('renamed');
  });

  it('a row is kept a minute at most (what a lost notification could leave behind)', async () => {
    const client = await dcrClient();
    const t0 = Date.now();
    expect(await nameOf(client.clientId, t0)).toBe(client.clientName);
    await renameQuietly(client.clientId, 'aged');
    expect(await nameOf(client.clientId, t0 + 59_000)).toBe(client.clientName);
    expect(await nameOf(client.clientId, t0 + 60_000)).toBe('aged');
  });

  it('a touch that is due writes, and the next lookup reads the row it wrote', async () => {
    const t0 = Date.now();
    const client = await dcrClient(t0 - 61_000);
    const first = await findClient(fx.server.db, client.clientId, lookup, t0);
    if (!first) throw new Error('client not found');
    expect(first.lastUsedAt).toBe(t0 - 61_000);
    await touchClient(fx.server.db, first, t0);
    const after = await findClient(fx.server.db, client.clientId, lookup, t0 + 1_000);
    if (!after) throw new Error('client not found');
    expect(after.lastUsedAt).toBe(t0);
    // Not due again within the minute: nothing written, and the kept row still says so.
    await touchClient(fx.server.db, after, t0 + 2_000);
    expect((await findClient(fx.server.db, client.clientId, lookup, t0 + 2_000))?.lastUsedAt).toBe(t0);
  });

  it('a client the purge deletes is unknown at once', async () => {
    const client = await dcrClient(Date.now() - DCR_IDLE_TTL_MS - 1_000);
    expect(await nameOf(client.clientId)).toBe(client.clientName);
    await purgeExpiredOAuth(fx.server.db);
    expect(await nameOf(client.clientId)).toBeUndefined();
  });

  it('a lookup that began before the client was invalidated does not keep what it read; other subjects do not matter', async () => {
    const cache = new ClientRowCache(fx.server.db);
    const row = { id: 'race-client' } as ClientRow;
    let finish = () => {};
    const read = () => new Promise<ClientRow>((resolve) => (finish = () => resolve(row)));
    const racing = cache.get(row.id, read);
    await fx.server.db.invalidate(clientSubject(row.id));
    finish();
    expect(await racing).toBe(row);
    expect(cache.size).toBe(0);
    const unrelated = cache.get(row.id, read);
    await fx.server.db.invalidate(grantSubject('some-grant'));
    finish();
    await unrelated;
    expect(cache.size).toBe(1);
  });

  if (testEngine() === 'postgres')
    it('PostgreSQL: a write by another instance reaches the kept row', async () => {
      const client = await dcrClient();
      expect(await nameOf(client.clientId)).toBe(client.clientName);
      await renameQuietly(client.clientId, 'elsewhere');
      const other = openPostgresStore(fx.server.config.databaseUrl as string);
      closing.push(other);
      const arrived = heard(fx.server.db, (s) => s === clientSubject(client.clientId));
      await other.invalidate(clientSubject(client.clientId));
      await arrived;
      expect(await nameOf(client.clientId)).toBe('elsewhere');
    });
});
