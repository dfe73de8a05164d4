import { describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/oauth/scopes.js';
import { hashToken } from '../../src/security/tokens.js';
import { oauthFixture } from '../helpers/oauth-fixture.js';
import {
  authorizeCode,
  authorizeUrl,
  callbackParams,
  consent,
  exchangeCode,
  freshAddress,
  grantForClient,
  mcpStatus,
  pkce,
  registerClient,
  tokenRequest,
} from '../helpers/oauth-http.js';

const fx = oauthFixture({ client: true });

/** A fresh code for the shared client (consent is remembered after the first). */
async function freshCode(options: { scope?: string; client?: string } = {}) {
  const p = pkce();
  const { code } = await authorizeCode(fx.server, fx.user, {
    clientId: options.client ?? fx.clientId,
    challenge: p.challenge,
    scope: options.scope ?? null,
  });
  return { code, verifier: p.verifier };
}

async function grantCount(): Promise<number> {
  return ((await fx.server.sql.get('SELECT count(*) AS n FROM oauth_grants')) as { n: number }).n;
}

function expectNoStore(headers: Headers) {
  expect(headers.get('cache-control')).toContain('no-store');
}

describe('authorization_code exchange (RFC 6749 §4.1.3, OAuth 2.1 §4.1.3)', () => {
  it('RFC 6749 §5.1: a valid exchange → 200 with a Bearer access token, expires_in, refresh token and scope', async () => {
    const { code, verifier } = await freshCode();
    const res = await exchangeCode(fx.server, { clientId: fx.clientId, code, verifier });
    expect(res.status).toBe(200);
    expect(res.body.token_type).toBe('Bearer');
    expect(res.body.access_token).toMatch(/^sim_at_/);
    expect(res.body.expires_in).toBe(3600);
    expect(res.body.scope).toBe(SCOPES.join(' '));
    expect(await mcpStatus(fx.server, res.body.access_token as string)).toBe(200);
  });

  it('DESIGN §4: a refresh token is always issued, without offline_access', async () => {
    const { code, verifier } = await freshCode({ scope: 'searches:read' });
    const res = await exchangeCode(fx.server, { clientId: fx.clientId, code, verifier });
    expect(res.body.refresh_token).toMatch(/^sim_rt_/);
    expect(res.body.scope).toBe('searches:read');
  });

  it('RFC 6749 §5.1: Cache-Control: no-store (and Pragma: no-cache) on success', async () => {
    const { code, verifier } = await freshCode();
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

  it('DESIGN §4: the token is bound to the scopes of the code', async () => {
    const { code, verifier } = await freshCode({ scope: 'agent:read account:read' });
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
    const { code, verifier } = await freshCode();
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

  it('DESIGN §4: a code older than 60 s → invalid_grant, nothing issued', async () => {
    const { code, verifier } = await freshCode();
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
    const before = await grantCount();
    const res = await exchangeCode(fx.server, { clientId: fx.clientId, code, verifier });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_grant');
    expect(await grantCount()).toBe(before);
  });

  it('RFC 6749 §4.1.3: a code issued to another client → invalid_grant', async () => {
    const { code, verifier } = await freshCode();
    const other = (await registerClient(fx.server, {}, freshAddress())).client_id;
    const res = await exchangeCode(fx.server, { clientId: other, code, verifier });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_grant');
    // The rightful client can still redeem it: the attempt did not burn the code.
    expect((await exchangeCode(fx.server, { clientId: fx.clientId, code, verifier })).status).toBe(200);
  });

  it('RFC 6749 §4.1.3: a redirect_uri different from the authorization request → invalid_grant', async () => {
    const { code, verifier } = await freshCode();
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
    const { code } = await freshCode();
    const res = await exchangeCode(fx.server, { clientId: fx.clientId, code, verifier: pkce().verifier });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_grant');
  });

  it('A wrong code_verifier burns the code: the right verifier afterwards is refused, nothing issued', async () => {
    const { code, verifier } = await freshCode();
    const before = await grantCount();
    const wrong = await exchangeCode(fx.server, { clientId: fx.clientId, code, verifier: pkce().verifier });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toBe('invalid_grant');
    const right = await exchangeCode(fx.server, { clientId: fx.clientId, code, verifier });
    expect(right.status).toBe(400);
    expect(right.body.error).toBe('invalid_grant');
    expect(right.body).not.toHaveProperty('access_token');
    expect(await grantCount()).toBe(before);
    const row = (await fx.server.sql.get(
      'SELECT used_at, grant_id FROM oauth_codes WHERE code_hash = ?',
      hashToken(code),
    )) as { used_at: number | null; grant_id: string | null };
    expect(row.used_at).not.toBeNull();
    expect(row.grant_id).toBeNull();
  });

  it('RFC 7636 §4.1: a malformed code_verifier (too short) is invalid_grant', async () => {
    const { code } = await freshCode();
    const res = await exchangeCode(fx.server, { clientId: fx.clientId, code, verifier: 'abc' });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_grant');
  });

  it('OAuth 2.1 §4.1.3 / RFC 7636 §4.5: a missing code_verifier → invalid_request', async () => {
    const { code } = await freshCode();
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
    const { code, verifier } = await freshCode();
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

describe('malformed token requests (RFC 6749 §3.2, §5.2)', () => {
  it('RFC 6749 §3.2: a repeated parameter → invalid_request', async () => {
    const { code, verifier } = await freshCode();
    const body = new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: 'http://localhost:3000/callback',
      code_verifier: verifier,
      client_id: fx.clientId,
    });
    body.append('code', code);
    const res = await fetch(`${fx.server.url}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body,
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toBe('invalid_request');
    // The refused request did not use the code.
    expect((await exchangeCode(fx.server, { clientId: fx.clientId, code, verifier })).status).toBe(200);
  });

  it('RFC 6749 §5.2: an unsupported grant type → unsupported_grant_type', async () => {
    for (const grant of ['client_credentials', 'password', 'urn:ietf:params:oauth:grant-type:device_code']) {
      const res = await tokenRequest(fx.server, { grant_type: grant, client_id: fx.clientId });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('unsupported_grant_type');
      expectNoStore(res.headers);
    }
  });

  it('RFC 6749 §5.2: a missing grant_type → invalid_request', async () => {
    const res = await tokenRequest(fx.server, { client_id: fx.clientId });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_request');
  });

  it('RFC 6749 §3.2: a JSON body instead of form encoding → invalid_request', async () => {
    const res = await fetch(`${fx.server.url}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'authorization_code', client_id: fx.clientId }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toBe('invalid_request');
    expectNoStore(res.headers);
  });

  it('RFC 6749 §3.2: GET /token is not allowed', async () => {
    const res = await fetch(`${fx.server.url}/token?grant_type=authorization_code`);
    expect(res.status).toBe(405);
  });
});

describe('concurrency and parallel grants (DESIGN §4)', () => {
  it('RFC 6749 §4.1.2: 10 parallel exchanges of one code → exactly one 200, the rest invalid_grant (and revoking it), no 500', async () => {
    const { code, verifier } = await freshCode();
    const results = await Promise.all(
      Array.from({ length: 10 }, () => exchangeCode(fx.server, { clientId: fx.clientId, code, verifier })),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s >= 500)).toHaveLength(0);
    for (const r of results.filter((x) => x.status !== 200)) expect(r.body.error).toBe('invalid_grant');
    // Each losing exchange is a replay of a used code, so it revokes what the code issued
    // (RFC 6749 §4.1.2): a client that double-submits its exchange must authorize again.
    const winner = results.find((r) => r.status === 200);
    expect(await mcpStatus(fx.server, winner?.body.access_token as string)).toBe(401);
  });

  it('DESIGN §4: re-authorizing a client never revokes the user’s other grants (both keep working)', async () => {
    const c = (await registerClient(fx.server, {}, freshAddress())).client_id;
    const first = await grantForClient(fx.server, fx.user, c);
    const second = await grantForClient(fx.server, fx.user, c);
    expect(second.accessToken).not.toBe(first.accessToken);
    expect(await mcpStatus(fx.server, first.accessToken)).toBe(200);
    expect(await mcpStatus(fx.server, second.accessToken)).toBe(200);
    for (const g of [first, second]) {
      const res = await tokenRequest(fx.server, {
        grant_type: 'refresh_token',
        refresh_token: g.refreshToken,
        client_id: c,
      });
      expect(res.status).toBe(200);
    }
    // A new grant on another device (another client) leaves them alone too.
    const other = (await registerClient(fx.server, {}, freshAddress())).client_id;
    await grantForClient(fx.server, fx.user, other);
    expect(await mcpStatus(fx.server, first.accessToken)).toBe(200);
  });
});

describe('redirect_uri at the token endpoint (OAuth 2.1 §4.1.3, RFC 6749 §4.1.3)', () => {
  it('OAuth 2.1 §4.1.3: a redirect_uri omitted at /authorize (one registered) may be omitted at /token', async () => {
    const single = (await registerClient(fx.server, {}, freshAddress())).client_id;
    const p = pkce();
    const url = new URL(authorizeUrl(fx.server, { clientId: single, challenge: p.challenge }));
    url.searchParams.delete('redirect_uri');
    const { decision } = await consent(fx.server, fx.user, url.toString());
    const code = callbackParams(decision as Response).get('code') as string;
    const res = await tokenRequest(fx.server, {
      grant_type: 'authorization_code',
      code,
      code_verifier: p.verifier,
      client_id: single,
    });
    expect(res.status).toBe(200);
  });

  it('redirect_uri at /token (OAuth 2.1 §4.1.3): sent at /authorize, it is required at /token even with one registered URI', async () => {
    const single = (await registerClient(fx.server, {}, freshAddress())).client_id;
    const { code, verifier } = await freshCode({ client: single });
    const omitted = await tokenRequest(fx.server, {
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      client_id: single,
    });
    expect(omitted.status).toBe(400);
    expect(omitted.body.error).toBe('invalid_request');
    expect(omitted.body.error_description).toMatch(/redirect_uri/);
    // A malformed request does not spend the code: repeated properly, it is exchanged.
    const repeated = await exchangeCode(fx.server, { clientId: single, code, verifier });
    expect(repeated.status).toBe(200);
  });

  it('redirect_uri at /token (OAuth 2.1 §4.1.3): omitted at /authorize, one sent at /token must be the one the code went to', async () => {
    const single = (await registerClient(fx.server, {}, freshAddress())).client_id;
    const p = pkce();
    const url = new URL(authorizeUrl(fx.server, { clientId: single, challenge: p.challenge }));
    url.searchParams.delete('redirect_uri');
    const { decision } = await consent(fx.server, fx.user, url.toString());
    const code = callbackParams(decision as Response).get('code') as string;
    const other = await exchangeCode(fx.server, {
      clientId: single,
      code,
      verifier: p.verifier,
      redirectUri: 'http://localhost:3000/other',
    });
    expect(other.body.error).toBe('invalid_grant');
  });

  it('RFC 6749 §4.1.3: a client with several redirect URIs (so it sent one at /authorize) must repeat it → invalid_request', async () => {
    const several = (
      await registerClient(
        fx.server,
        { redirect_uris: ['http://localhost:3000/callback', 'https://app.example.com/cb'] },
        freshAddress(),
      )
    ).client_id;
    const { code, verifier } = await freshCode({ client: several });
    const res = await tokenRequest(fx.server, {
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      client_id: several,
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_request');
  });
});
