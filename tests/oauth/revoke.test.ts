import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  authorizeCode,
  freshAddress,
  grantForClient,
  mcpStatus,
  pkce,
  registerClient,
  revokeRequest,
  type SignedInUser,
  signedInUser,
  tokenRequest,
} from '../helpers/oauth-http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let user: SignedInUser;
let clientId: string;
beforeAll(async () => {
  server = await startTestServer({ env: { TRUST_PROXY: 'true' } });
  user = await signedInUser(server);
  clientId = (await registerClient(server, {}, freshAddress())).client_id;
});
afterAll(async () => {
  await server?.close();
});

function refresh(refreshToken: string, client = clientId) {
  return tokenRequest(server, {
    grant_type: 'refresh_token',
    refresh_token: refreshToken,
    client_id: client,
  });
}

describe('token revocation (RFC 7009)', () => {
  it('RFC 7009 §2.1: revoking a refresh token ends the grant (its access token → 401 at /mcp)', async () => {
    const g = await grantForClient(server, user, clientId);
    expect(await mcpStatus(server, g.accessToken)).toBe(200);
    const res = await revokeRequest(server, {
      token: g.refreshToken,
      token_type_hint: 'refresh_token',
      client_id: clientId,
    });
    expect(res.status).toBe(200);
    expect(await mcpStatus(server, g.accessToken)).toBe(401);
    const r = await refresh(g.refreshToken);
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('invalid_grant');
  });

  it('RFC 7009 §2.1: revoking an access token ends that token only (the refresh token still works)', async () => {
    const g = await grantForClient(server, user, clientId);
    const res = await revokeRequest(server, {
      token: g.accessToken,
      token_type_hint: 'access_token',
      client_id: clientId,
    });
    expect(res.status).toBe(200);
    expect(await mcpStatus(server, g.accessToken)).toBe(401);
    const r = await refresh(g.refreshToken);
    expect(r.status).toBe(200);
    expect(await mcpStatus(server, r.body.access_token as string)).toBe(200);
  });

  it('RFC 7009 §2.1: a wrong token_type_hint does not prevent revocation', async () => {
    const g = await grantForClient(server, user, clientId);
    const res = await revokeRequest(server, {
      token: g.accessToken,
      token_type_hint: 'refresh_token',
      client_id: clientId,
    });
    expect(res.status).toBe(200);
    expect(await mcpStatus(server, g.accessToken)).toBe(401);
  });

  it('RFC 7009 §2.1: an unknown token_type_hint value is ignored, the token is still revoked', async () => {
    const g = await grantForClient(server, user, clientId);
    const res = await revokeRequest(server, {
      token: g.accessToken,
      token_type_hint: 'id_token',
      client_id: clientId,
    });
    expect(res.status).toBe(200);
    expect(await mcpStatus(server, g.accessToken)).toBe(401);
  });

  it('RFC 7009 §2.2: an unknown token → 200', async () => {
    const res = await revokeRequest(server, { token: 'sim_rt_never_issued', client_id: clientId });
    expect(res.status).toBe(200);
  });

  it('RFC 7009 §2.2: revoking twice → 200 both times', async () => {
    const g = await grantForClient(server, user, clientId);
    expect((await revokeRequest(server, { token: g.refreshToken, client_id: clientId })).status).toBe(200);
    expect((await revokeRequest(server, { token: g.refreshToken, client_id: clientId })).status).toBe(200);
  });

  it('RFC 7009 §2.1: another client’s token → 200, and it is not revoked', async () => {
    const g = await grantForClient(server, user, clientId);
    const other = (await registerClient(server, {}, freshAddress())).client_id;
    for (const token of [g.refreshToken, g.accessToken]) {
      const res = await revokeRequest(server, { token, client_id: other });
      expect(res.status).toBe(200);
    }
    expect(await mcpStatus(server, g.accessToken)).toBe(200);
    expect((await refresh(g.refreshToken)).status).toBe(200);
  });

  it('RFC 7009 §2.1: client authentication is required (confidential client without its secret → 401, nothing revoked)', async () => {
    const c = await registerClient(
      server,
      { token_endpoint_auth_method: 'client_secret_post' },
      freshAddress(),
    );
    const p = pkce();
    const { code } = await authorizeCode(server, user, { clientId: c.client_id, challenge: p.challenge });
    const tokens = await tokenRequest(server, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: 'http://localhost:3000/callback',
      code_verifier: p.verifier,
      client_id: c.client_id,
      client_secret: c.client_secret ?? '',
    });
    const access = tokens.body.access_token as string;
    const noSecret = await revokeRequest(server, {
      token: tokens.body.refresh_token as string,
      client_id: c.client_id,
    });
    expect(noSecret.status).toBe(401);
    expect(JSON.parse(noSecret.text).error).toBe('invalid_client');
    const wrongSecret = await revokeRequest(server, {
      token: tokens.body.refresh_token as string,
      client_id: c.client_id,
      client_secret: 'sim_cs_wrong',
    });
    expect(wrongSecret.status).toBe(401);
    expect(await mcpStatus(server, access)).toBe(200);
  });

  it('RFC 7009 §2.1: no client identification → 401 invalid_client', async () => {
    const g = await grantForClient(server, user, clientId);
    const res = await revokeRequest(server, { token: g.refreshToken });
    expect(res.status).toBe(401);
    expect(JSON.parse(res.text).error).toBe('invalid_client');
    expect(await mcpStatus(server, g.accessToken)).toBe(200);
  });

  it('RFC 7009 §2.1: a missing token parameter → 400 invalid_request', async () => {
    const res = await revokeRequest(server, { client_id: clientId });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text).error).toBe('invalid_request');
  });
});
