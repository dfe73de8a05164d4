import { describe, expect, it } from 'vitest';
import { purgeExpired } from '../../src/housekeeping/index.js';
import { DCR_IDLE_TTL_MS } from '../../src/oauth/clients/repository.js';
import { hashToken } from '../../src/security/tokens.js';
import { oauthFixture } from '../helpers/oauth-fixture.js';
import {
  authorizeCode,
  authorizeUrl,
  browserGet,
  freshAddress,
  grantForClient,
  mcpStatus,
  pkce,
  registerClient,
  signedInUser,
  tokenRequest,
} from '../helpers/oauth-http.js';

const fx = oauthFixture();

const DAY = 24 * 3600 * 1000;
const sql = async (query: string, ...params: unknown[]) => await fx.server.sql.run(query, ...params);
const clientExists = async (id: string) =>
  (await fx.server.sql.get('SELECT 1 FROM oauth_clients WHERE id = ?', id)) !== undefined;
const clientExpiry = async (id: string) =>
  (
    (await fx.server.sql.get('SELECT expires_at FROM oauth_clients WHERE id = ?', id)) as {
      expires_at: number;
    }
  ).expires_at;

async function newClient() {
  return (await registerClient(fx.server, {}, freshAddress())).client_id;
}

describe('DCR client hygiene', () => {
  it('a DCR client idle past its TTL with no grants is purged by purgeExpired', async () => {
    const id = await newClient();
    const fresh = await newClient();
    await sql('UPDATE oauth_clients SET expires_at = ? WHERE id = ?', Date.now() - 1, id);
    const counts = await purgeExpired(fx.server.db);
    expect(counts.clients).toBeGreaterThanOrEqual(1);
    expect(await clientExists(id)).toBe(false);
    expect(await clientExists(fresh)).toBe(true);
  });

  it('an idle DCR client with a live grant is never purged, and its tokens keep working', async () => {
    const id = await newClient();
    const g = await grantForClient(fx.server, fx.user, id);
    await sql('UPDATE oauth_clients SET expires_at = ? WHERE id = ?', Date.now() - 1, id);
    await purgeExpired(fx.server.db);
    expect(await clientExists(id)).toBe(true);
    expect(await mcpStatus(fx.server, g.accessToken)).toBe(200);
    const r = await tokenRequest(fx.server, {
      grant_type: 'refresh_token',
      refresh_token: g.refreshToken,
      client_id: id,
    });
    expect(r.status).toBe(200);
  });

  it('once its grants are long dead, the idle client goes too (then /token says invalid_client)', async () => {
    const id = await newClient();
    const g = await grantForClient(fx.server, fx.user, id);
    const longAgo = Date.now() - 40 * DAY;
    await sql(
      'UPDATE oauth_tokens SET expires_at = ? WHERE grant_id IN (SELECT id FROM oauth_grants WHERE client_id = ?)',
      longAgo,
      id,
    );
    await sql('UPDATE oauth_grants SET created_at = ? WHERE client_id = ?', longAgo, id);
    await sql('UPDATE oauth_clients SET expires_at = ? WHERE id = ?', Date.now() - 1, id);
    await purgeExpired(fx.server.db);
    expect(await clientExists(id)).toBe(false);
    const r = await tokenRequest(fx.server, {
      grant_type: 'refresh_token',
      refresh_token: g.refreshToken,
      client_id: id,
    });
    expect(r.status).toBe(401);
    expect(r.body.error).toBe('invalid_client');
  });

  it('the TTL is refreshed on use at /token', async () => {
    const id = await newClient();
    const g = await grantForClient(fx.server, fx.user, id);
    await sql('UPDATE oauth_clients SET expires_at = ? WHERE id = ?', Date.now() + 1_000, id);
    await tokenRequest(fx.server, {
      grant_type: 'refresh_token',
      refresh_token: g.refreshToken,
      client_id: id,
    });
    expect(await clientExpiry(id)).toBeGreaterThan(Date.now() + DCR_IDLE_TTL_MS - 60_000);
  });

  it('the TTL is refreshed on use at /authorize', async () => {
    const id = await newClient();
    await sql('UPDATE oauth_clients SET expires_at = ? WHERE id = ?', Date.now() + 1_000, id);
    const res = await browserGet(
      authorizeUrl(fx.server, { clientId: id, challenge: pkce().challenge }),
      fx.user.cookie,
    );
    expect(res.status).toBe(200);
    expect(await clientExpiry(id)).toBeGreaterThan(Date.now() + DCR_IDLE_TTL_MS - 60_000);
  });
});

describe('expired rows (RFC 6749 §4.1.2)', () => {
  it('RFC 6749 §4.1.2: a recently expired code is kept (a replay must still be recognised); a day-old one is purged', async () => {
    const id = await newClient();
    const recent = await authorizeCode(fx.server, fx.user, { clientId: id, challenge: pkce().challenge });
    const old = await authorizeCode(fx.server, fx.user, { clientId: id, challenge: pkce().challenge });
    await sql(
      'UPDATE oauth_codes SET expires_at = ? WHERE code_hash = ?',
      Date.now() - 1_000,
      hashToken(recent.code),
    );
    await sql(
      'UPDATE oauth_codes SET expires_at = ? WHERE code_hash = ?',
      Date.now() - 2 * DAY,
      hashToken(old.code),
    );
    await purgeExpired(fx.server.db);
    const has = async (code: string) =>
      (await fx.server.sql.get('SELECT 1 FROM oauth_codes WHERE code_hash = ?', hashToken(code))) !==
      undefined;
    expect(await has(recent.code)).toBe(true);
    expect(await has(old.code)).toBe(false);
  });

  it('tokens expired for over a day are purged; live ones are kept', async () => {
    const id = await newClient();
    const dead = await grantForClient(fx.server, fx.user, id);
    const live = await grantForClient(fx.server, fx.user, id);
    await sql(
      'UPDATE oauth_tokens SET expires_at = ? WHERE token_hash = ?',
      Date.now() - 2 * DAY,
      hashToken(dead.accessToken),
    );
    await purgeExpired(fx.server.db);
    const has = async (t: string) =>
      (await fx.server.sql.get('SELECT 1 FROM oauth_tokens WHERE token_hash = ?', hashToken(t))) !==
      undefined;
    expect(await has(dead.accessToken)).toBe(false);
    expect(await has(dead.refreshToken)).toBe(true);
    expect(await has(live.accessToken)).toBe(true);
  });

  it('expired sessions are purged', async () => {
    const other = await signedInUser(fx.server);
    await sql('UPDATE sessions SET expires_at = ? WHERE user_id = ?', Date.now() - 1, other.userId);
    const counts = await purgeExpired(fx.server.db);
    expect(counts.sessions).toBeGreaterThanOrEqual(1);
    const left = (await fx.server.sql.get(
      'SELECT count(*) AS n FROM sessions WHERE user_id = ?',
      other.userId,
    )) as {
      n: number;
    };
    expect(left.n).toBe(0);
  });

  it('consent decisions are kept while their form could be posted again, then purged', async () => {
    const now = Date.now();
    const insert = 'INSERT INTO oauth_decisions (id, user_id, created_at, expires_at) VALUES (?, ?, ?, ?)';
    await sql(insert, 'decision-expired', fx.user.userId, now - 2 * DAY, now - DAY);
    await sql(insert, 'decision-live', fx.user.userId, now, now + 15 * 60_000);
    const counts = await purgeExpired(fx.server.db, now);
    expect(counts.decisions).toBeGreaterThanOrEqual(1);
    const ids = ((await fx.server.sql.all('SELECT id FROM oauth_decisions')) as Array<{ id: string }>).map(
      (r) => r.id,
    );
    expect(ids).toContain('decision-live');
    expect(ids).not.toContain('decision-expired');
  });
});
