import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { purgeExpired } from '../../src/housekeeping/index.js';
import { DCR_IDLE_TTL_MS } from '../../src/oauth/clients/repository.js';
import { hashToken } from '../../src/security/tokens.js';
import {
  authorizeCode,
  authorizeUrl,
  browserGet,
  freshAddress,
  grantForClient,
  mcpStatus,
  pkce,
  registerClient,
  type SignedInUser,
  signedInUser,
  tokenRequest,
} from '../helpers/oauth-http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let user: SignedInUser;
beforeAll(async () => {
  server = await startTestServer({ env: { TRUST_PROXY: 'true' } });
  user = await signedInUser(server);
});
afterAll(async () => {
  await server?.close();
});

const DAY = 24 * 3600 * 1000;
const sql = (query: string, ...params: unknown[]) => server.db.$client.prepare(query).run(...params);
const clientExists = (id: string) =>
  server.db.$client.prepare('SELECT 1 FROM oauth_clients WHERE id = ?').get(id) !== undefined;
const clientExpiry = (id: string) =>
  (
    server.db.$client.prepare('SELECT expires_at FROM oauth_clients WHERE id = ?').get(id) as {
      expires_at: number;
    }
  ).expires_at;

async function newClient() {
  return (await registerClient(server, {}, freshAddress())).client_id;
}

describe('DCR client hygiene (DESIGN §4)', () => {
  it('DESIGN §4: a DCR client idle past its TTL with no grants is purged by purgeExpired', async () => {
    const id = await newClient();
    const fresh = await newClient();
    sql('UPDATE oauth_clients SET expires_at = ? WHERE id = ?', Date.now() - 1, id);
    const counts = purgeExpired(server.db);
    expect(counts.clients).toBeGreaterThanOrEqual(1);
    expect(clientExists(id)).toBe(false);
    expect(clientExists(fresh)).toBe(true);
  });

  it('DESIGN §4: an idle DCR client with a live grant is never purged, and its tokens keep working', async () => {
    const id = await newClient();
    const g = await grantForClient(server, user, id);
    sql('UPDATE oauth_clients SET expires_at = ? WHERE id = ?', Date.now() - 1, id);
    purgeExpired(server.db);
    expect(clientExists(id)).toBe(true);
    expect(await mcpStatus(server, g.accessToken)).toBe(200);
    const r = await tokenRequest(server, {
      grant_type: 'refresh_token',
      refresh_token: g.refreshToken,
      client_id: id,
    });
    expect(r.status).toBe(200);
  });

  it('DESIGN §4: once its grants are long dead, the idle client goes too (then /token says invalid_client)', async () => {
    const id = await newClient();
    const g = await grantForClient(server, user, id);
    const longAgo = Date.now() - 40 * DAY;
    sql(
      'UPDATE oauth_tokens SET expires_at = ? WHERE grant_id IN (SELECT id FROM oauth_grants WHERE client_id = ?)',
      longAgo,
      id,
    );
    sql('UPDATE oauth_grants SET created_at = ? WHERE client_id = ?', longAgo, id);
    sql('UPDATE oauth_clients SET expires_at = ? WHERE id = ?', Date.now() - 1, id);
    purgeExpired(server.db);
    expect(clientExists(id)).toBe(false);
    const r = await tokenRequest(server, {
      grant_type: 'refresh_token',
      refresh_token: g.refreshToken,
      client_id: id,
    });
    expect(r.status).toBe(401);
    expect(r.body.error).toBe('invalid_client');
  });

  it('DESIGN §4: the TTL is refreshed on use at /token', async () => {
    const id = await newClient();
    const g = await grantForClient(server, user, id);
    sql('UPDATE oauth_clients SET expires_at = ? WHERE id = ?', Date.now() + 1_000, id);
    await tokenRequest(server, { grant_type: 'refresh_token', refresh_token: g.refreshToken, client_id: id });
    expect(clientExpiry(id)).toBeGreaterThan(Date.now() + DCR_IDLE_TTL_MS - 60_000);
  });

  it('DESIGN §4: the TTL is refreshed on use at /authorize', async () => {
    const id = await newClient();
    sql('UPDATE oauth_clients SET expires_at = ? WHERE id = ?', Date.now() + 1_000, id);
    const res = await browserGet(
      authorizeUrl(server, { clientId: id, challenge: pkce().challenge }),
      user.cookie,
    );
    expect(res.status).toBe(200);
    expect(clientExpiry(id)).toBeGreaterThan(Date.now() + DCR_IDLE_TTL_MS - 60_000);
  });
});

describe('expired rows (DESIGN §4, RFC 6749 §4.1.2)', () => {
  it('RFC 6749 §4.1.2: a recently expired code is kept (a replay must still be recognised); a day-old one is purged', async () => {
    const id = await newClient();
    const recent = await authorizeCode(server, user, { clientId: id, challenge: pkce().challenge });
    const old = await authorizeCode(server, user, { clientId: id, challenge: pkce().challenge });
    sql(
      'UPDATE oauth_codes SET expires_at = ? WHERE code_hash = ?',
      Date.now() - 1_000,
      hashToken(recent.code),
    );
    sql(
      'UPDATE oauth_codes SET expires_at = ? WHERE code_hash = ?',
      Date.now() - 2 * DAY,
      hashToken(old.code),
    );
    purgeExpired(server.db);
    const has = (code: string) =>
      server.db.$client.prepare('SELECT 1 FROM oauth_codes WHERE code_hash = ?').get(hashToken(code)) !==
      undefined;
    expect(has(recent.code)).toBe(true);
    expect(has(old.code)).toBe(false);
  });

  it('DESIGN §4: tokens expired for over a day are purged; live ones are kept', async () => {
    const id = await newClient();
    const dead = await grantForClient(server, user, id);
    const live = await grantForClient(server, user, id);
    sql(
      'UPDATE oauth_tokens SET expires_at = ? WHERE token_hash = ?',
      Date.now() - 2 * DAY,
      hashToken(dead.accessToken),
    );
    purgeExpired(server.db);
    const has = (t: string) =>
      server.db.$client.prepare('SELECT 1 FROM oauth_tokens WHERE token_hash = ?').get(hashToken(t)) !==
      undefined;
    expect(has(dead.accessToken)).toBe(false);
    expect(has(dead.refreshToken)).toBe(true);
    expect(has(live.accessToken)).toBe(true);
  });

  it('DESIGN §4: expired sessions are purged', async () => {
    const other = await signedInUser(server);
    sql('UPDATE sessions SET expires_at = ? WHERE user_id = ?', Date.now() - 1, other.userId);
    const counts = purgeExpired(server.db);
    expect(counts.sessions).toBeGreaterThanOrEqual(1);
    const left = server.db.$client
      .prepare('SELECT count(*) AS n FROM sessions WHERE user_id = ?')
      .get(other.userId) as {
      n: number;
    };
    expect(left.n).toBe(0);
  });

  it('consent decisions are kept while their form could be posted again, then purged', () => {
    const now = Date.now();
    const insert = 'INSERT INTO oauth_decisions (id, user_id, created_at, expires_at) VALUES (?, ?, ?, ?)';
    sql(insert, 'decision-expired', user.userId, now - 2 * DAY, now - DAY);
    sql(insert, 'decision-live', user.userId, now, now + 15 * 60_000);
    const counts = purgeExpired(server.db, now);
    expect(counts.decisions).toBeGreaterThanOrEqual(1);
    const ids = (
      server.db.$client.prepare('SELECT id FROM oauth_decisions').all() as Array<{ id: string }>
    ).map((r) => r.id);
    expect(ids).toContain('decision-live');
    expect(ids).not.toContain('decision-expired');
  });
});
