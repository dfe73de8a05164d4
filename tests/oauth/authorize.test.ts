// /authorize: errors sent back to the client with state and iss; scopes; the sign-in and credentials detours.
import { describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/oauth/scopes.js';
import { authorizeFixture, expectRedirectedError } from '../helpers/authorize-fixture.js';
import {
  authorizeCode,
  authorizeUrl,
  browserGet,
  callbackParams,
  consent,
  exchangeCode,
  pkce,
  registerClient,
  signedInUser,
} from '../helpers/oauth-http.js';

const fx = authorizeFixture();
const { challenge } = pkce();

describe('errors sent back to the client carry state and iss (RFC 6749 §4.1.2.1, RFC 9207 §2)', () => {
  it('OAuth 2.1 §4.1.1 / RFC 7636 §4.4.1: a missing code_challenge → invalid_request redirect', async () => {
    const res = await browserGet(authorizeUrl(fx.server, { clientId: fx.clientId }), fx.user.cookie);
    expectRedirectedError(fx.server, res, 'invalid_request');
  });

  it('RFC 7636 §4.2: code_challenge_method=plain is refused → invalid_request', async () => {
    const res = await browserGet(
      authorizeUrl(fx.server, { clientId: fx.clientId, challenge, method: 'plain' }),
      fx.user.cookie,
    );
    expectRedirectedError(fx.server, res, 'invalid_request');
  });

  it('RFC 7636 §4.3: a missing code_challenge_method (defaults to plain) is refused', async () => {
    const res = await browserGet(
      authorizeUrl(fx.server, { clientId: fx.clientId, challenge, method: null }),
      fx.user.cookie,
    );
    expectRedirectedError(fx.server, res, 'invalid_request');
  });

  it('RFC 7636 §4.2: a code_challenge that is not 43 base64url characters → invalid_request', async () => {
    const res = await browserGet(
      authorizeUrl(fx.server, { clientId: fx.clientId, challenge: 'short' }),
      fx.user.cookie,
    );
    expectRedirectedError(fx.server, res, 'invalid_request');
  });

  it('RFC 8707 §2: a resource other than PUBLIC_URL/mcp → invalid_target with state and iss', async () => {
    for (const resource of ['https://other.example/mcp', `${fx.server.url}/other`, `${fx.server.url}/`]) {
      const res = await browserGet(
        authorizeUrl(fx.server, { clientId: fx.clientId, challenge, resource, state: 's-1' }),
        fx.user.cookie,
      );
      expectRedirectedError(fx.server, res, 'invalid_target', 's-1');
    }
  });

  it('RFC 8707 §2: two resource parameters → invalid_target', async () => {
    const url = new URL(authorizeUrl(fx.server, { clientId: fx.clientId, challenge }));
    url.searchParams.append('resource', 'https://other.example/mcp');
    expectRedirectedError(fx.server, await browserGet(url.toString(), fx.user.cookie), 'invalid_target');
  });

  it('RFC 6749 §4.1.2.1: a repeated parameter other than client_id/redirect_uri → invalid_request redirect', async () => {
    for (const name of ['scope', 'code_challenge', 'response_type']) {
      const url = new URL(
        authorizeUrl(fx.server, { clientId: fx.clientId, challenge, scope: 'searches:read' }),
      );
      url.searchParams.append(name, url.searchParams.get(name) ?? 'x');
      expectRedirectedError(fx.server, await browserGet(url.toString(), fx.user.cookie), 'invalid_request');
    }
  });

  it('RFC 6749 §4.1.2.1: response_type other than code → unsupported_response_type with state and iss', async () => {
    const res = await browserGet(
      authorizeUrl(fx.server, { clientId: fx.clientId, challenge, responseType: 'token' }),
      fx.user.cookie,
    );
    expectRedirectedError(fx.server, res, 'unsupported_response_type');
  });

  it('OIDC Core §3.1.2.6: prompt=none → interaction_required with state and iss', async () => {
    const res = await browserGet(
      authorizeUrl(fx.server, { clientId: fx.clientId, challenge, extra: { prompt: 'none' } }),
      fx.user.cookie,
    );
    expectRedirectedError(fx.server, res, 'interaction_required');
  });

  it('RFC 9207 §2: iss in the Location is byte-identical to PUBLIC_URL', async () => {
    const res = await browserGet(authorizeUrl(fx.server, { clientId: fx.clientId }), fx.user.cookie);
    const location = res.headers.get('location') ?? '';
    expect(location).toContain(`iss=${encodeURIComponent(fx.server.config.publicUrl)}`);
    expect(callbackParams(res).get('iss')).toBe(fx.server.config.publicUrl);
  });

  it('RFC 6749 §4.1.2.1: the error goes to the requested (registered) redirect URI, not another one', async () => {
    const res = await browserGet(
      authorizeUrl(fx.server, { clientId: fx.clientId, redirectUri: 'https://app.example.com/cb' }),
      fx.user.cookie,
    );
    expect(res.status).toBe(302);
    expect(res.headers.get('location')?.startsWith('https://app.example.com/cb?')).toBe(true);
  });

  it('RFC 6749 §4.1.2.1: an oversize state (> 2048 characters) → invalid_request, not echoed', async () => {
    const res = await browserGet(
      authorizeUrl(fx.server, { clientId: fx.clientId, challenge, state: 's'.repeat(3000) }),
      fx.user.cookie,
    );
    expect(res.status).toBe(302);
    const params = callbackParams(res);
    expect(params.get('error')).toBe('invalid_request');
    expect(params.has('state')).toBe(false);
    expect(params.get('iss')).toBe(fx.server.config.publicUrl);
  });

  it('RFC 6749 §4.1.2.1: without a state no state is returned', async () => {
    const res = await browserGet(
      authorizeUrl(fx.server, { clientId: fx.clientId, state: null }),
      fx.user.cookie,
    );
    expect(res.status).toBe(302);
    expect(callbackParams(res).has('state')).toBe(false);
    expect(callbackParams(res).get('iss')).toBe(fx.server.config.publicUrl);
  });
});

describe('scopes (RFC 6749 §3.3)', () => {
  it('unknown scopes (openid profile email offline_access) are ignored, not refused', async () => {
    const p = pkce();
    const c = await registerClient(fx.server);
    const scope = 'openid profile email offline_access searches:read';
    const { page, html, decision } = await consent(
      fx.server,
      fx.user,
      authorizeUrl(fx.server, { clientId: c.client_id, challenge: p.challenge, scope }),
    );
    expect(page.status).toBe(200);
    expect(html).toContain('searches:read');
    expect(html).not.toContain('offline_access');
    expect(html).not.toContain('agent:write');
    const code = callbackParams(decision as Response).get('code') as string;
    const tokens = await exchangeCode(fx.server, { clientId: c.client_id, code, verifier: p.verifier });
    expect(tokens.status).toBe(200);
    expect(tokens.body.scope).toBe('searches:read');
  });

  it('no scope parameter means all six scopes', async () => {
    const p = pkce();
    const c = await registerClient(fx.server);
    const { code } = await authorizeCode(fx.server, fx.user, {
      clientId: c.client_id,
      challenge: p.challenge,
    });
    const tokens = await exchangeCode(fx.server, { clientId: c.client_id, code, verifier: p.verifier });
    expect(tokens.body.scope).toBe(SCOPES.join(' '));
  });

  it('only unknown scopes asked for means all six scopes (nothing refused)', async () => {
    const p = pkce();
    const c = await registerClient(fx.server);
    const { code } = await authorizeCode(fx.server, fx.user, {
      clientId: c.client_id,
      challenge: p.challenge,
      scope: 'openid offline_access',
    });
    const tokens = await exchangeCode(fx.server, { clientId: c.client_id, code, verifier: p.verifier });
    expect(tokens.body.scope).toBe(SCOPES.join(' '));
  });
});

describe('detours', () => {
  it('a signed-out browser → 303 to /sign-in?next=<the authorize request>', async () => {
    const url = authorizeUrl(fx.server, { clientId: fx.clientId, challenge, state: 'keep-me' });
    const res = await browserGet(url);
    expect(res.status).toBe(303);
    const location = new URL(res.headers.get('location') ?? '', fx.server.url);
    expect(location.pathname).toBe('/sign-in');
    const next = location.searchParams.get('next') ?? '';
    expect(next.startsWith('/authorize?')).toBe(true);
    const original = new URL(url);
    expect(next).toBe(`${original.pathname}${original.search}`);
  });

  it('a signed-in fx.user without upstream credentials → 303 to /account/credentials?next=…', async () => {
    const bare = await signedInUser(fx.server, { upstreamToken: null });
    const url = authorizeUrl(fx.server, { clientId: fx.clientId, challenge });
    const res = await browserGet(url, bare.cookie);
    expect(res.status).toBe(303);
    const location = new URL(res.headers.get('location') ?? '', fx.server.url);
    expect(location.pathname).toBe('/account/credentials');
    const original = new URL(url);
    expect(location.searchParams.get('next')).toBe(`${original.pathname}${original.search}`);
  });

  it('authorization redirects use 302/303, never 307', async () => {
    const seen: number[] = [];
    const cases = [
      browserGet(authorizeUrl(fx.server, { clientId: fx.clientId, challenge })), // sign-in detour
      browserGet(authorizeUrl(fx.server, { clientId: fx.clientId }), fx.user.cookie), // error to the client
    ];
    for (const res of await Promise.all(cases)) seen.push(res.status);
    const p = pkce();
    const c = await registerClient(fx.server);
    const first = await consent(
      fx.server,
      fx.user,
      authorizeUrl(fx.server, { clientId: c.client_id, challenge: p.challenge }),
    );
    seen.push((first.decision as Response).status);
    const denied = await consent(
      fx.server,
      fx.user,
      authorizeUrl(fx.server, {
        clientId: (await registerClient(fx.server)).client_id,
        challenge: p.challenge,
      }),
      { decision: 'deny' },
    );
    seen.push((denied.decision as Response).status);
    const remembered = await browserGet(
      authorizeUrl(fx.server, { clientId: c.client_id, challenge: p.challenge }),
      fx.user.cookie,
    );
    seen.push(remembered.status);
    for (const status of seen) expect([302, 303]).toContain(status);
  });
});
