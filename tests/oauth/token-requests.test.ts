// /token requests: malformed ones, concurrency and parallel grants, redirect_uri at the token endpoint.
import { describe, expect, it } from 'vitest';
import { oauthFixture } from '../helpers/oauth-fixture.js';
import {
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

import { expectNoStore, freshCode } from '../helpers/token-checks.js';

const fx = oauthFixture({ client: true });

describe('malformed token requests (RFC 6749 §3.2, §5.2)', () => {
  it('RFC 6749 §3.2: a repeated parameter → invalid_request', async () => {
    const { code, verifier } = await freshCode(fx);
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

describe('concurrency and parallel grants', () => {
  it('RFC 6749 §4.1.2: 10 parallel exchanges of one code → exactly one 200, the rest invalid_grant (and revoking it), no 500', async () => {
    const { code, verifier } = await freshCode(fx);
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

  it('re-authorizing a client never revokes the user’s other grants (both keep working)', async () => {
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
    const { code, verifier } = await freshCode(fx, { client: single });
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
    const { code, verifier } = await freshCode(fx, { client: several });
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
