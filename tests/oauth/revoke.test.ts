import { describe, expect, it } from 'vitest';
import { oauthFixture } from '../helpers/oauth-fixture.js';
import {
  authorizeCode,
  freshAddress,
  grantForClient,
  mcpStatus,
  pkce,
  registerClient,
  revokeRequest,
  tokenRequest,
} from '../helpers/oauth-http.js';

const fx = oauthFixture({ client: true });

function refresh(refreshToken: string, client = fx.clientId) {
  return tokenRequest(fx.server, {
    grant_type: 'refresh_token',
    refresh_token: refreshToken,
    client_id: client,
  });
}

describe('token revocation (RFC 7009)', () => {
  it('RFC 7009 §2.1: revoking a refresh token ends the grant (its access token → 401 at /mcp)', async () => {
    const g = await grantForClient(fx.server, fx.user, fx.clientId);
    expect(await mcpStatus(fx.server, g.accessToken)).toBe(200);
    const res = await revokeRequest(fx.server, {
      token: g.refreshToken,
      token_type_hint: 'refresh_token',
      client_id: fx.clientId,
    });
    expect(res.status).toBe(200);
    expect(await mcpStatus(fx.server, g.accessToken)).toBe(401);
    const r = await refresh(g.refreshToken);
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('invalid_grant');
  });

  it('RFC 7009 §2.1: revoking an access token ends that token only (the refresh token still works)', async () => {
    const g = await grantForClient(fx.server, fx.user, fx.clientId);
    const res = await revokeRequest(fx.server, {
      token: g.accessToken,
      token_type_hint: 'access_token',
      client_id: fx.clientId,
    });
    expect(res.status).toBe(200);
    expect(await mcpStatus(fx.server, g.accessToken)).toBe(401);
    const r = await refresh(g.refreshToken);
    expect(r.status).toBe(200);
    expect(await mcpStatus(fx.server, r.body.access_token as string)).toBe(200);
  });

  it('RFC 7009 §2.1: a wrong token_type_hint does not prevent revocation', async () => {
    const g = await grantForClient(fx.server, fx.user, fx.clientId);
    const res = await revokeRequest(fx.server, {
      token: g.accessToken,
      token_type_hint: 'refresh_token',
      client_id: fx.clientId,
    });
    expect(res.status).toBe(200);
    expect(await mcpStatus(fx.server, g.accessToken)).toBe(401);
  });

  it('RFC 7009 §2.1: an unknown token_type_hint value is ignored, the token is still revoked', async () => {
    const g = await grantForClient(fx.server, fx.user, fx.clientId);
    const res = await revokeRequest(fx.server, {
      token: g.accessToken,
      token_type_hint: 'id_token',
      client_id: fx.clientId,
    });
    expect(res.status).toBe(200);
    expect(await mcpStatus(fx.server, g.accessToken)).toBe(401);
  });

  it('RFC 7009 §2.2: an unknown token → 200', async () => {
    const res = await revokeRequest(fx.server, { token: 'sim_rt_never_issued', client_id: fx.clientId });
    expect(res.status).toBe(200);
  });

  it('RFC 7009 §2.2: revoking twice → 200 both times', async () => {
    const g = await grantForClient(fx.server, fx.user, fx.clientId);
    expect((await revokeRequest(fx.server, { token: g.refreshToken, client_id: fx.clientId })).status).toBe(
      200,
    );
    expect((await revokeRequest(fx.server, { token: g.refreshToken, client_id: fx.clientId })).status).toBe(
      200,
    );
  });

  it('RFC 7009 §2.1: another client’s token → 200, and it is not revoked', async () => {
    const g = await grantForClient(fx.server, fx.user, fx.clientId);
    const other = (await registerClient(fx.server, {}, freshAddress())).client_id;
    for (const token of [g.refreshToken, g.accessToken]) {
      const res = await revokeRequest(fx.server, { token, client_id: other });
      expect(res.status).toBe(200);
    }
    expect(await mcpStatus(fx.server, g.accessToken)).toBe(200);
    expect((await refresh(g.refreshToken)).status).toBe(200);
  });

  it('RFC 7009 §2.1: client authentication is required (confidential client without its secret → 401, nothing revoked)', async () => {
    const c = await registerClient(
      fx.server,
      { token_endpoint_auth_method: 'client_secret_post' },
      freshAddress(),
    );
    const p = pkce();
    const { code } = await authorizeCode(fx.server, fx.user, {
      clientId: c.client_id,
      challenge: p.challenge,
    });
    const tokens = await tokenRequest(fx.server, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: 'http://localhost:3000/callback',
      code_verifier: p.verifier,
      client_id: c.client_id,
      client_secret: c.client_secret ?? '',
    });
    const access = tokens.body.access_token as string;
    const noSecret = await revokeRequest(fx.server, {
      token: tokens.body.refresh_token as string,
      client_id: c.client_id,
    });
    expect(noSecret.status).toBe(401);
    expect(JSON.parse(noSecret.text).error).toBe('invalid_client');
    const wrongSecret = await revokeRequest(fx.server, {
      token: tokens.body.refresh_token as string,
      client_id: c.client_id,
      client_secret: 'sim_cs_wrong',
    });
    expect(wrongSecret.status).toBe(401);
    expect(await mcpStatus(fx.server, access)).toBe(200);
  });

  it('RFC 7009 §2.1: no client identification → 401 invalid_client', async () => {
    const g = await grantForClient(fx.server, fx.user, fx.clientId);
    const res = await revokeRequest(fx.server, { token: g.refreshToken });
    expect(res.status).toBe(401);
    expect(JSON.parse(res.text).error).toBe('invalid_client');
    expect(await mcpStatus(fx.server, g.accessToken)).toBe(200);
  });

  it('RFC 7009 §2.1: a missing token parameter → 400 invalid_request', async () => {
    const res = await revokeRequest(fx.server, { client_id: fx.clientId });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text).error).toBe('invalid_request');
  });
});
