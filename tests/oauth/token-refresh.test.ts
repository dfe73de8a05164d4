import { describe, expect, it } from 'vitest';
import { REFRESH_GRACE_MS } from '../../src/oauth/refresh.js';
import { SCOPES } from '../../src/oauth/scopes.js';
import { hashToken } from '../../src/security/tokens.js';
import { oauthFixture } from '../helpers/oauth-fixture.js';
import {
  freshAddress,
  grantForClient,
  mcpStatus,
  registerClient,
  tokenRequest,
} from '../helpers/oauth-http.js';
import { ageTokenFamily } from '../helpers/token-checks.js';

const fx = oauthFixture({ client: true });

function refresh(refreshToken: string, extra: Record<string, string> = {}, client = fx.clientId) {
  return tokenRequest(fx.server, {
    grant_type: 'refresh_token',
    refresh_token: refreshToken,
    client_id: client,
    ...extra,
  });
}

async function tokenRow(token: string) {
  return (await fx.server.sql.get('SELECT * FROM oauth_tokens WHERE token_hash = ?', hashToken(token))) as {
    scopes: string | null;
    created_at: number;
    expires_at: number;
    rotated_at: number | null;
    revoked_at: number | null;
  };
}

const ageFamily = (refreshToken: string, ms: number) => ageTokenFamily(fx.server.sql, refreshToken, ms);

/** A refresh token used twice within the grace window: the rotation's pair and the grace pair. */
async function forked() {
  const g = await grantForClient(fx.server, fx.user, fx.clientId);
  const a = await refresh(g.refreshToken);
  const b = await refresh(g.refreshToken);
  expect([a.status, b.status]).toEqual([200, 200]);
  const pair = (r: typeof a) => ({
    access: r.body.access_token as string,
    refresh: r.body.refresh_token as string,
  });
  return { g, a: pair(a), b: pair(b) };
}

describe('one live branch after the grace window (RFC 9700 §4.14.2)', () => {
  it('after the grace window at most one refresh branch lives: the first one used continues, the other is cut off', async () => {
    const { a, b } = await forked();
    await ageFamily(b.refresh, REFRESH_GRACE_MS + 1_000);
    // The extra pair's branch is used first once the window has passed: it continues…
    const next = await refresh(b.refresh);
    expect(next.status).toBe(200);
    expect(await mcpStatus(fx.server, next.body.access_token as string)).toBe(200);
    // …and the rotation's branch is cut off: its access token is refused at once.
    expect(await mcpStatus(fx.server, a.access)).toBe(401);
    // The survivor is an ordinary chain again.
    const after = await refresh(next.body.refresh_token as string);
    expect(after.status).toBe(200);
    expect(await mcpStatus(fx.server, after.body.access_token as string)).toBe(200);
  });

  it('a refresh token of the cut-off branch used later is reuse: the whole family ends', async () => {
    const { a, b } = await forked();
    await ageFamily(a.refresh, REFRESH_GRACE_MS + 1_000);
    const next = await refresh(a.refresh);
    expect(next.status).toBe(200);
    const late = await refresh(b.refresh);
    expect(late.status).toBe(400);
    expect(late.body.error).toBe('invalid_grant');
    expect(late.body.error_description).toMatch(/already used/);
    expect(await mcpStatus(fx.server, next.body.access_token as string)).toBe(401);
    expect((await refresh(next.body.refresh_token as string)).status).toBe(400);
  });

  it('inside the window both branches refresh, and the window still settles them afterwards', async () => {
    const { a, b } = await forked();
    const a2 = await refresh(a.refresh);
    const b2 = await refresh(b.refresh);
    expect([a2.status, b2.status]).toEqual([200, 200]);
    await ageFamily(a.refresh, REFRESH_GRACE_MS + 1_000);
    const a3 = await refresh(a2.body.refresh_token as string);
    expect(a3.status).toBe(200);
    expect(await mcpStatus(fx.server, b2.body.access_token as string)).toBe(401);
    expect(await mcpStatus(fx.server, a3.body.access_token as string)).toBe(200);
  });

  it('both branches used at once after the window: at most one pair comes out alive', async () => {
    const { a, b } = await forked();
    await ageFamily(a.refresh, REFRESH_GRACE_MS + 1_000);
    const both = await Promise.all([refresh(a.refresh), refresh(b.refresh)]);
    const alive = [];
    for (const r of both.filter((r) => r.status === 200)) {
      if ((await mcpStatus(fx.server, r.body.access_token as string)) === 200) alive.push(r);
    }
    expect(alive.length).toBeLessThanOrEqual(1);
    expect(both.every((r) => r.status === 200 || r.body.error === 'invalid_grant')).toBe(true);
  });
});

describe('refresh token rotation (OAuth 2.1 §4.3.1, RFC 9700 §4.14.2)', () => {
  it('OAuth 2.1 §4.3.1: every refresh returns a new refresh token and a new access token', async () => {
    const g = await grantForClient(fx.server, fx.user, fx.clientId);
    const r1 = await refresh(g.refreshToken);
    expect(r1.status).toBe(200);
    expect(r1.body.refresh_token).toMatch(/^sim_rt_/);
    expect(r1.body.refresh_token).not.toBe(g.refreshToken);
    expect(r1.body.access_token).not.toBe(g.accessToken);
    const r2 = await refresh(r1.body.refresh_token as string);
    expect(r2.status).toBe(200);
    expect(r2.body.refresh_token).not.toBe(r1.body.refresh_token);
    expect(await mcpStatus(fx.server, r2.body.access_token as string)).toBe(200);
    expect((await tokenRow(g.refreshToken)).rotated_at).not.toBeNull();
  });

  it('RFC 6749 §5.1: a refresh response has Cache-Control: no-store', async () => {
    const g = await grantForClient(fx.server, fx.user, fx.clientId);
    const r = await refresh(g.refreshToken);
    expect(r.headers.get('cache-control')).toContain('no-store');
  });

  it('access tokens are short-lived (1 h by default)', async () => {
    const g = await grantForClient(fx.server, fx.user, fx.clientId);
    const r = await refresh(g.refreshToken);
    expect(r.body.expires_in).toBe(3600);
    const row = await tokenRow(r.body.access_token as string);
    expect(row.expires_at - row.created_at).toBe(3600_000);
  });

  it('reuse within the grace window works, and both pairs stay valid', async () => {
    const g = await grantForClient(fx.server, fx.user, fx.clientId);
    const a = await refresh(g.refreshToken);
    const b = await refresh(g.refreshToken);
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(b.body.refresh_token).not.toBe(a.body.refresh_token);
    expect(await mcpStatus(fx.server, a.body.access_token as string)).toBe(200);
    expect(await mcpStatus(fx.server, b.body.access_token as string)).toBe(200);
    expect((await refresh(a.body.refresh_token as string)).status).toBe(200);
    expect((await refresh(b.body.refresh_token as string)).status).toBe(200);
  });

  it('RFC 9700 §4.14.2: reuse outside the grace window → invalid_grant and the whole family is revoked', async () => {
    const g = await grantForClient(fx.server, fx.user, fx.clientId);
    const next = await refresh(g.refreshToken);
    expect(next.status).toBe(200);
    await fx.server.sql.run(
      'UPDATE oauth_tokens SET rotated_at = ? WHERE token_hash = ?',
      Date.now() - REFRESH_GRACE_MS - 1_000,
      hashToken(g.refreshToken),
    );
    const reuse = await refresh(g.refreshToken);
    expect(reuse.status).toBe(400);
    expect(reuse.body.error).toBe('invalid_grant');
    // Everything in the family is gone: the successor pair and the original access token.
    expect(await mcpStatus(fx.server, next.body.access_token as string)).toBe(401);
    expect(await mcpStatus(fx.server, g.accessToken)).toBe(401);
    const successor = await refresh(next.body.refresh_token as string);
    expect(successor.status).toBe(400);
    expect(successor.body.error).toBe('invalid_grant');
  });

  it('a family revoked for reuse does not touch the same app’s other device (another family of the grant)', async () => {
    const victim = await grantForClient(fx.server, fx.user, fx.clientId);
    const bystander = await grantForClient(fx.server, fx.user, fx.clientId);
    await refresh(victim.refreshToken);
    await fx.server.sql.run(
      'UPDATE oauth_tokens SET rotated_at = ? WHERE token_hash = ?',
      Date.now() - REFRESH_GRACE_MS - 1_000,
      hashToken(victim.refreshToken),
    );
    expect((await refresh(victim.refreshToken)).status).toBe(400);
    expect(await mcpStatus(fx.server, bystander.accessToken)).toBe(200);
    expect((await refresh(bystander.refreshToken)).status).toBe(200);
  });

  it('Refresh grace window: at most one extra pair per rotated refresh token; a third use is reuse and revokes the family', async () => {
    const bystander = await grantForClient(fx.server, fx.user, fx.clientId);
    const g = await grantForClient(fx.server, fx.user, fx.clientId);
    const first = await refresh(g.refreshToken);
    const extra = await refresh(g.refreshToken);
    expect([first.status, extra.status]).toEqual([200, 200]);
    const third = await refresh(g.refreshToken);
    expect(third.status).toBe(400);
    expect(third.body.error).toBe('invalid_grant');
    // The whole family is gone, both pairs included; the same app's other device is not touched.
    for (const pair of [first, extra]) {
      expect(await mcpStatus(fx.server, pair.body.access_token as string)).toBe(401);
      expect((await refresh(pair.body.refresh_token as string)).status).toBe(400);
    }
    expect(await mcpStatus(fx.server, bystander.accessToken)).toBe(200);
  });

  it('Refresh grace window under concurrency: 10 parallel uses of one refresh token → exactly two pairs, the rest refused (reuse), no 500', async () => {
    const g = await grantForClient(fx.server, fx.user, fx.clientId);
    const results = await Promise.all(Array.from({ length: 10 }, () => refresh(g.refreshToken)));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 200, 400, 400, 400, 400, 400, 400, 400, 400]);
    for (const r of results.filter((r) => r.status === 400)) expect(r.body.error).toBe('invalid_grant');
    const minted = (await fx.server.sql.get(
      "SELECT count(*) AS n FROM oauth_tokens WHERE family_id = (SELECT family_id FROM oauth_tokens WHERE token_hash = ?) AND kind = 'refresh'",
      hashToken(g.refreshToken),
    )) as { n: number };
    expect(minted.n).toBe(3);
  });
});

describe('refresh scope (RFC 6749 §6)', () => {
  it('RFC 6749 §6: a refresh token minted before families carried scopes (none stored) refreshes with its grant’s scopes, and its successor carries them', async () => {
    const c = (await registerClient(fx.server, {}, freshAddress())).client_id;
    const g = await grantForClient(fx.server, fx.user, c, { scope: 'searches:read agent:read' });
    await fx.server.sql.run(
      'UPDATE oauth_tokens SET scopes = NULL WHERE token_hash = ?',
      hashToken(g.refreshToken),
    );
    const res = await refresh(g.refreshToken, {}, c);
    expect(res.status).toBe(200);
    expect(res.body.scope).toBe('searches:read agent:read');
    expect((await tokenRow(res.body.access_token as string)).scopes).toBe('searches:read agent:read');
    expect((await tokenRow(res.body.refresh_token as string)).scopes).toBe('searches:read agent:read');
  });

  it('RFC 6749 §6: a refresh cannot widen the scope → invalid_scope, the token stays usable', async () => {
    const c = (await registerClient(fx.server, {}, freshAddress())).client_id;
    const g = await grantForClient(fx.server, fx.user, c, { scope: 'searches:read' });
    const wider = await refresh(g.refreshToken, { scope: 'searches:read searches:write' }, c);
    expect(wider.status).toBe(400);
    expect(wider.body.error).toBe('invalid_scope');
    expect((await refresh(g.refreshToken, {}, c)).status).toBe(200);
  });

  it('RFC 6749 §6: a refresh may narrow the scope; the new access token carries only the narrower scope', async () => {
    const g = await grantForClient(fx.server, fx.user, fx.clientId);
    expect(g.scope).toBe(SCOPES.join(' '));
    const narrow = await refresh(g.refreshToken, { scope: 'searches:read agent:read' });
    expect(narrow.status).toBe(200);
    expect(narrow.body.scope).toBe('searches:read agent:read');
    expect((await tokenRow(narrow.body.access_token as string)).scopes).toBe('searches:read agent:read');
    // What /mcp sees for that token: only the narrower scopes.
    const { verifyAccessToken } = await import('../../src/mcp/auth/authenticate.js');
    const verified = await verifyAccessToken(
      fx.server.db,
      fx.server.secrets,
      fx.server.config,
      narrow.body.access_token as string,
    );
    expect(verified.ok && verified.caller.scopes).toEqual(['searches:read', 'agent:read']);
  });

  it('RFC 6749 §6: unknown scopes in a refresh are ignored, not refused', async () => {
    const g = await grantForClient(fx.server, fx.user, fx.clientId, { scope: 'searches:read' });
    const res = await refresh(g.refreshToken, { scope: 'searches:read offline_access openid' });
    expect(res.status).toBe(200);
    expect(res.body.scope).toBe('searches:read');
  });
});

describe('invalid refresh requests (RFC 6749 §5.2, §6)', () => {
  it('RFC 6749 §6: an unknown refresh token → invalid_grant', async () => {
    const res = await refresh('sim_rt_doesnotexist');
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_grant');
  });

  it('RFC 6749 §6: a missing refresh_token → invalid_request', async () => {
    const res = await tokenRequest(fx.server, { grant_type: 'refresh_token', client_id: fx.clientId });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_request');
  });

  it('RFC 6749 §6: a refresh token of another client → invalid_grant, and it stays valid for its own client', async () => {
    const g = await grantForClient(fx.server, fx.user, fx.clientId);
    const other = (await registerClient(fx.server, {}, freshAddress())).client_id;
    const res = await refresh(g.refreshToken, {}, other);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_grant');
    expect((await refresh(g.refreshToken)).status).toBe(200);
  });

  it('RFC 6749 §6: an expired refresh token → invalid_grant', async () => {
    const g = await grantForClient(fx.server, fx.user, fx.clientId);
    await fx.server.sql.run(
      'UPDATE oauth_tokens SET expires_at = ? WHERE token_hash = ?',
      Date.now() - 1,
      hashToken(g.refreshToken),
    );
    const res = await refresh(g.refreshToken);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_grant');
  });

  it('RFC 8707 §2: a refresh for another resource → invalid_target', async () => {
    const g = await grantForClient(fx.server, fx.user, fx.clientId);
    const res = await refresh(g.refreshToken, { resource: 'https://other.example/mcp' });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_target');
    expect((await refresh(g.refreshToken, { resource: fx.server.config.resourceUrl })).status).toBe(200);
  });

  it('RFC 6749 §5.2: an access token sent as a refresh token → invalid_grant', async () => {
    const g = await grantForClient(fx.server, fx.user, fx.clientId);
    const res = await refresh(g.accessToken);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_grant');
  });
});
