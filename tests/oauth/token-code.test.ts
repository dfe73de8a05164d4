// The authorization_code exchange at /token and the code's rules: single use, short life, bound to client,
// redirect and PKCE.
import { describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/oauth/scopes.js';
import { hashToken } from '../../src/security/tokens.js';
import { oauthFixture } from '../helpers/oauth-fixture.js';
import {
  exchangeCode,
  freshAddress,
  mcpStatus,
  pkce,
  registerClient,
  tokenRequest,
} from '../helpers/oauth-http.js';

import { expectNoStore, freshCode, grantCount } from '../helpers/token-checks.js';

const fx = oauthFixture({ client: true });

describe('authorization_code exchange (RFC 6749 §4.1.3, OAuth 2.1 §4.1.3)', () => {
  it('RFC 6749 §5.1: a valid exchange → 200 with a Bearer access token, expires_in, refresh token and scope', async () => {
    const { code, verifier } = await freshCode(fx);
    const res = await exchangeCode(fx.server, { clientId: fx.clientId, code, verifier });
    expect(res.status).toBe(200);
    expect(res.body.token_type).toBe('Bearer');
    expect(res.body.access_token).toMatch(/^sim_at_/);
    expect(res.body.expires_in).toBe(3600);
    expect(res.body.scope).toBe(SCOPES.join(' '));
    expect(await mcpStatus(fx.server, res.body.access_token as string)).toBe(200);
  });

  it('a refresh token is always issued, without offline_access', async () => {
    const { code, verifier } = await freshCode(fx, { scope: 'searches:read' });
    const res = await exchangeCode(fx.server, { clientId: fx.clientId, code, verifier });
    expect(res.body.refresh_token).toMatch(/^sim_rt_/);
    expect(res.body.scope).toBe('searches:read');
  });

  it('RFC 6749 §5.1: Cache-Control: no-store (and Pragma: no-cache) on success', async () => {
    const { code, verifier } = await freshCode(fx);
    const res = await exchangeCode(fx.server, { clientId: fx.clientId, code, verifier });
    expect(res.status).toBe(200);
    expectNoStore(res.headers);
    expect(res.headers.get('pragma')).toBe('no-cache');
  });

  it('RFC 6749 §5.2: Cache-Control: no-store on errors', async () => {
    const res = await exchangeCode(fx.server, {
      clientId: fx.clientId,
      code: 'sim_ac_nope',
      verifier: pkce().verifier,
    });
    expect(res.status).toBe(400);
    expectNoStore(res.headers);
  });

  it('the token is bound to the scopes of the code', async () => {
    const { code, verifier } = await freshCode(fx, { scope: 'agent:read account:read' });
    const res = await exchangeCode(fx.server, { clientId: fx.clientId, code, verifier });
    expect(res.body.scope).toBe('agent:read account:read');
    const row = (await fx.server.sql.get(
      'SELECT scopes FROM oauth_tokens WHERE token_hash = ?',
      hashToken(res.body.access_token as string),
    )) as { scopes: string };
    expect(row.scopes).toBe('agent:read account:read');
  });
});

describe('the code is single-use, short-lived and bound (RFC 6749 §4.1.2, §10.5; RFC 7636 §4.6)', () => {
  it('RFC 6749 §4.1.2: a used code → invalid_grant, and the replay revokes what it issued (access 401 at /mcp)', async () => {
    const { code, verifier } = await freshCode(fx);
    const first = await exchangeCode(fx.server, { clientId: fx.clientId, code, verifier });
    expect(first.status).toBe(200);
    const access = first.body.access_token as string;
    expect(await mcpStatus(fx.server, access)).toBe(200);
    const replay = await exchangeCode(fx.server, { clientId: fx.clientId, code, verifier });
    expect(replay.status).toBe(400);
    expect(replay.body.error).toBe('invalid_grant');
    expect(await mcpStatus(fx.server, access)).toBe(401);
    const refresh = await tokenRequest(fx.server, {
      grant_type: 'refresh_token',
      refresh_token: first.body.refresh_token as string,
      client_id: fx.clientId,
    });
    expect(refresh.status).toBe(400);
    expect(refresh.body.error).toBe('invalid_grant');
  });

  it('a code older than 60 s → invalid_grant, nothing issued', async () => {
    const { code, verifier } = await freshCode(fx);
    const row = (await fx.server.sql.get(
      'SELECT created_at, expires_at FROM oauth_codes WHERE code_hash = ?',
      hashToken(code),
    )) as { created_at: number; expires_at: number };
    expect(row.expires_at - row.created_at).toBeLessThanOrEqual(60_000);
    await fx.server.sql.run(
      'UPDATE oauth_codes SET expires_at = ? WHERE code_hash = ?',
      Date.now() - 1,
      hashToken(code),
    );
    const before = await grantCount(fx);
    const res = await exchangeCode(fx.server, { clientId: fx.clientId, code, verifier });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_grant');
    expect(await grantCount(fx)).toBe(before);
  });

  it('RFC 6749 §4.1.3: a code issued to another client → invalid_grant', async () => {
    const { code, verifier } = await freshCode(fx);
    const other = (await registerClient(fx.server, {}, freshAddress())).client_id;
    const res = await exchangeCode(fx.server, { clientId: other, code, verifier });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_grant');
    // The rightful client can still redeem it: the attempt did not burn the code.
    expect((await exchangeCode(fx.server, { clientId: fx.clientId, code, verifier })).status).toBe(200);
  });

  it('RFC 6749 §4.1.3: a redirect_uri different from the authorization request → invalid_grant', async () => {
    const { code, verifier } = await freshCode(fx);
    const res = await exchangeCode(fx.server, {
      clientId: fx.clientId,
      code,
      verifier,
      redirectUri: 'http://localhost:3001/callback',
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_grant');
  });

  it('RFC 7636 §4.6: a wrong code_verifier is invalid_grant', async () => {
    const { code } = await freshCode(fx);
    const res = await exchangeCode(fx.server, { clientId: fx.clientId, code, verifier: pkce().verifier });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_grant');
  });

  it('A wrong code_verifier burns the code: the right verifier afterwards is refused, nothing issued', async () => {
    const { code, verifier } = await freshCode(fx);
    const before = await grantCount(fx);
    const wrong = await exchangeCode(fx.server, { clientId: fx.clientId, code, verifier: pkce().verifier });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toBe('invalid_grant');
    const right = await exchangeCode(fx.server, { clientId: fx.clientId, code, verifier });
    expect(right.status).toBe(400);
    expect(right.body.error).toBe('invalid_grant');
    expect(right.body).not.toHaveProperty('access_token');
    expect(await grantCount(fx)).toBe(before);
    const row = (await fx.server.sql.get(
      'SELECT used_at, grant_id FROM oauth_codes WHERE code_hash = ?',
      hashToken(code),
    )) as { used_at: number | null; grant_id: string | null };
    expect(row.used_at).not.toBeNull();
    expect(row.grant_id).toBeNull();
  });

  it('RFC 7636 §4.1: a malformed code_verifier (too short) is invalid_grant', async () => {
    const { code } = await freshCode(fx);
    const res = await exchangeCode(fx.server, { clientId: fx.clientId, code, verifier: 'abc' });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_grant');
  });

  it('OAuth 2.1 §4.1.3 / RFC 7636 §4.5: a missing code_verifier → invalid_request', async () => {
    const { code } = await freshCode(fx);
    const res = await tokenRequest(fx.server, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: 'http://localhost:3000/callback',
      client_id: fx.clientId,
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_request');
  });

  it('RFC 8707 §2: a resource different from the authorized one → invalid_target', async () => {
    const { code, verifier } = await freshCode(fx);
    const res = await exchangeCode(
      fx.server,
      { clientId: fx.clientId, code, verifier },
      { resource: 'https://other.example/mcp' },
    );
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_target');
  });

  it('RFC 6749 §4.1.3: a missing code → invalid_request', async () => {
    const base = {
      grant_type: 'authorization_code',
      code: 'sim_ac_x',
      redirect_uri: 'http://localhost:3000/callback',
      code_verifier: pkce().verifier,
      client_id: fx.clientId,
    };
    for (const missing of ['code'] as const) {
      const params: Record<string, string> = { ...base };
      delete params[missing];
      const res = await tokenRequest(fx.server, params);
      expect(res.status, missing).toBe(400);
      expect(res.body.error, missing).toBe('invalid_request');
    }
  });
});
