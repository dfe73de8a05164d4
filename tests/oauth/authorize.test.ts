import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/oauth/scopes.js';
import {
  authorizeCode,
  authorizeUrl,
  browserGet,
  callbackParams,
  consent,
  exchangeCode,
  pkce,
  registerClient,
  type SignedInUser,
  signedInUser,
} from '../helpers/oauth-http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let user: SignedInUser;
let clientId: string;
beforeAll(async () => {
  server = await startTestServer();
  user = await signedInUser(server);
  clientId = (
    await registerClient(server, {
      redirect_uris: ['http://localhost:3000/callback', 'https://app.example.com/cb'],
    })
  ).client_id;
  // The person has connected this client before, so its errors may go back to it (RFC 9700 §4.11.2).
  await authorizeCode(server, user, { clientId, challenge: pkce().challenge });
});
afterAll(async () => {
  await server?.close();
});

const { challenge } = pkce();

/** An error page shown to the person: HTML 400 and no redirect. */
async function expectShown(res: Response, message: RegExp) {
  expect(res.status).toBe(400);
  expect(res.headers.get('location')).toBeNull();
  expect(res.headers.get('content-type')).toMatch(/^text\/html/);
  expect(await res.text()).toMatch(message);
}

/** An error sent back to the client: 302 (never 307) with error, state and iss (RFC 9207 §2). */
function expectRedirectedError(res: Response, error: string, state = 'state-123') {
  expect(res.status).toBe(302);
  const location = res.headers.get('location') ?? '';
  expect(location.startsWith('http://localhost:3000/callback?')).toBe(true);
  const params = callbackParams(res);
  expect(params.get('error')).toBe(error);
  expect(params.get('state')).toBe(state);
  expect(params.get('iss')).toBe(server.config.publicUrl);
  expect(params.get('code')).toBeNull();
}

describe('client and redirect errors are shown, never redirected (RFC 6749 §4.1.2.1, DESIGN §4)', () => {
  it('RFC 6749 §4.1.2.1: a missing client_id → HTML 400', async () => {
    const url = new URL(authorizeUrl(server, { clientId: 'x', challenge }));
    url.searchParams.delete('client_id');
    await expectShown(await browserGet(url.toString(), user.cookie), /client_id is missing/);
  });

  it('RFC 6749 §4.1.2.1: an unknown client_id → HTML 400, not redirected', async () => {
    const res = await browserGet(
      authorizeUrl(server, { clientId: 'sim_client_unknown', challenge }),
      user.cookie,
    );
    await expectShown(res, /not registered here/);
  });

  it('RFC 6749 §4.1.2.1 / OAuth 2.1 §4.1.1: an unregistered redirect_uri → HTML 400, not redirected', async () => {
    for (const redirectUri of [
      'https://evil.example/cb',
      'https://app.example.com/cb/other',
      'https://app.example.com:8443/cb',
      'http://localhost:3000/callback/../evil',
    ]) {
      const res = await browserGet(authorizeUrl(server, { clientId, challenge, redirectUri }), user.cookie);
      await expectShown(res, /did not register/);
    }
  });

  it('RFC 8252 §7.1: a redirect URI registered before its scheme was refused is not used (HTML 400)', async () => {
    const stale = await registerClient(server);
    await server.sql.run(
      'UPDATE oauth_clients SET redirect_uris = ? WHERE id = ?',
      JSON.stringify(['search-ms:query=x']),
      stale.client_id,
    );
    const res = await browserGet(
      authorizeUrl(server, { clientId: stale.client_id, challenge, redirectUri: 'search-ms:query=x' }),
      user.cookie,
    );
    await expectShown(res, /did not register/);
  });

  it('RFC 6749 §3.1.2.3: a missing redirect_uri with several registered → HTML 400', async () => {
    const url = new URL(authorizeUrl(server, { clientId, challenge }));
    url.searchParams.delete('redirect_uri');
    await expectShown(await browserGet(url.toString(), user.cookie), /redirect_uri is missing/);
  });

  it('RFC 6749 §3.1.2.3: a missing redirect_uri with exactly one registered uses that one', async () => {
    const single = await registerClient(server);
    const url = new URL(authorizeUrl(server, { clientId: single.client_id, challenge }));
    url.searchParams.delete('redirect_uri');
    const res = await browserGet(url.toString(), user.cookie);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('localhost:3000');
  });

  it('RFC 6749 §3.1: a repeated parameter → HTML 400', async () => {
    const url = new URL(authorizeUrl(server, { clientId, challenge }));
    url.searchParams.append('redirect_uri', 'https://evil.example/cb');
    await expectShown(await browserGet(url.toString(), user.cookie), /repeats the parameter redirect_uri/);
  });

  it('RFC 6749 §4.1.2.1: client errors are shown even to a signed-out browser (no sign-in detour)', async () => {
    const res = await browserGet(authorizeUrl(server, { clientId: 'sim_client_unknown', challenge }));
    await expectShown(res, /not registered here/);
  });
});

describe('loopback redirects (RFC 8252 §7.3, DESIGN §4)', () => {
  let loopback: string;
  beforeAll(async () => {
    loopback = (
      await registerClient(server, {
        redirect_uris: ['http://localhost/callback', 'http://127.0.0.1/cb', 'http://[::1]/cb'],
      })
    ).client_id;
  });

  it('RFC 8252 §7.3: a loopback redirect with any port is accepted (localhost, 127.0.0.1, [::1])', async () => {
    for (const redirectUri of [
      'http://localhost:54321/callback',
      'http://localhost/callback',
      'http://127.0.0.1:1234/cb',
      'http://[::1]:8080/cb',
    ]) {
      const res = await browserGet(
        authorizeUrl(server, { clientId: loopback, challenge, redirectUri }),
        user.cookie,
      );
      expect(res.status, redirectUri).toBe(200);
    }
  });

  it('RFC 8252 §7.3: the port is the only part that may differ (path, host, scheme must match)', async () => {
    for (const redirectUri of [
      'http://localhost:54321/other',
      'http://127.0.0.1:1234/callback',
      'https://localhost:54321/callback',
      'http://localhost:54321/callback?x=1',
    ]) {
      const res = await browserGet(
        authorizeUrl(server, { clientId: loopback, challenge, redirectUri }),
        user.cookie,
      );
      expect(res.status, redirectUri).toBe(400);
      expect(res.headers.get('location')).toBeNull();
    }
  });

  it('RFC 8252 §7.3: the code from a loopback redirect on another port exchanges with that exact redirect_uri', async () => {
    const p = pkce();
    const redirectUri = 'http://127.0.0.1:40123/cb';
    const { code, redirect } = await authorizeCode(server, user, {
      clientId: loopback,
      challenge: p.challenge,
      redirectUri,
    });
    expect(redirect.headers.get('location')?.startsWith(`${redirectUri}?`)).toBe(true);
    const tokens = await exchangeCode(server, {
      clientId: loopback,
      code,
      verifier: p.verifier,
      redirectUri,
    });
    expect(tokens.status).toBe(200);
  });
});

describe('Open redirect (RFC 9700 §4.11.2): errors go back only to clients this person connected before', () => {
  /** A client anyone could have registered, whose redirect URI is the registrant's own site. */
  async function strangersClient() {
    return (await registerClient(server, { redirect_uris: ['https://evil.example/landing'] })).client_id;
  }

  it('before anyone signed in, an error for a freshly registered client is shown, not redirected', async () => {
    const stranger = await strangersClient();
    for (const url of [
      authorizeUrl(server, { clientId: stranger, redirectUri: 'https://evil.example/landing' }),
      authorizeUrl(server, {
        clientId: stranger,
        challenge,
        redirectUri: 'https://evil.example/landing',
        extra: { prompt: 'none' },
      }),
      authorizeUrl(server, {
        clientId: stranger,
        challenge,
        redirectUri: 'https://evil.example/landing',
        responseType: 'token',
      }),
    ]) {
      await expectShown(await browserGet(url), /cannot be accepted/);
    }
  });

  it('a signed-in person who never connected that client sees the error too', async () => {
    const stranger = await strangersClient();
    const res = await browserGet(
      authorizeUrl(server, { clientId: stranger, redirectUri: 'https://evil.example/landing' }),
      user.cookie,
    );
    await expectShown(res, /code_challenge is required/);
  });

  it('once the person has connected the client, its errors go back to it with state and iss', async () => {
    const known = (await registerClient(server)).client_id;
    await authorizeCode(server, user, { clientId: known, challenge });
    const res = await browserGet(authorizeUrl(server, { clientId: known }), user.cookie);
    expectRedirectedError(res, 'invalid_request');
    // The same request from a browser where nobody is signed in is not trusted.
    await expectShown(await browserGet(authorizeUrl(server, { clientId: known })), /cannot be accepted/);
  });
});

describe('errors sent back to the client carry state and iss (RFC 6749 §4.1.2.1, RFC 9207 §2)', () => {
  it('OAuth 2.1 §4.1.1 / RFC 7636 §4.4.1: a missing code_challenge → invalid_request redirect', async () => {
    const res = await browserGet(authorizeUrl(server, { clientId }), user.cookie);
    expectRedirectedError(res, 'invalid_request');
  });

  it('RFC 7636 §4.2 / DESIGN §4: code_challenge_method=plain is refused → invalid_request', async () => {
    const res = await browserGet(authorizeUrl(server, { clientId, challenge, method: 'plain' }), user.cookie);
    expectRedirectedError(res, 'invalid_request');
  });

  it('RFC 7636 §4.3 / DESIGN §4: a missing code_challenge_method (defaults to plain) is refused', async () => {
    const res = await browserGet(authorizeUrl(server, { clientId, challenge, method: null }), user.cookie);
    expectRedirectedError(res, 'invalid_request');
  });

  it('RFC 7636 §4.2: a code_challenge that is not 43 base64url characters → invalid_request', async () => {
    const res = await browserGet(authorizeUrl(server, { clientId, challenge: 'short' }), user.cookie);
    expectRedirectedError(res, 'invalid_request');
  });

  it('RFC 8707 §2 / DESIGN §4: a resource other than PUBLIC_URL/mcp → invalid_target with state and iss', async () => {
    for (const resource of ['https://other.example/mcp', `${server.url}/other`, `${server.url}/`]) {
      const res = await browserGet(
        authorizeUrl(server, { clientId, challenge, resource, state: 's-1' }),
        user.cookie,
      );
      expectRedirectedError(res, 'invalid_target', 's-1');
    }
  });

  it('RFC 8707 §2: two resource parameters → invalid_target', async () => {
    const url = new URL(authorizeUrl(server, { clientId, challenge }));
    url.searchParams.append('resource', 'https://other.example/mcp');
    expectRedirectedError(await browserGet(url.toString(), user.cookie), 'invalid_target');
  });

  it('RFC 6749 §4.1.2.1: a repeated parameter other than client_id/redirect_uri → invalid_request redirect', async () => {
    for (const name of ['scope', 'code_challenge', 'response_type']) {
      const url = new URL(authorizeUrl(server, { clientId, challenge, scope: 'searches:read' }));
      url.searchParams.append(name, url.searchParams.get(name) ?? 'x');
      expectRedirectedError(await browserGet(url.toString(), user.cookie), 'invalid_request');
    }
  });

  it('RFC 6749 §4.1.2.1: response_type other than code → unsupported_response_type with state and iss', async () => {
    const res = await browserGet(
      authorizeUrl(server, { clientId, challenge, responseType: 'token' }),
      user.cookie,
    );
    expectRedirectedError(res, 'unsupported_response_type');
  });

  it('OIDC Core §3.1.2.6: prompt=none → interaction_required with state and iss', async () => {
    const res = await browserGet(
      authorizeUrl(server, { clientId, challenge, extra: { prompt: 'none' } }),
      user.cookie,
    );
    expectRedirectedError(res, 'interaction_required');
  });

  it('RFC 9207 §2 / DESIGN §4: iss in the Location is byte-identical to PUBLIC_URL', async () => {
    const res = await browserGet(authorizeUrl(server, { clientId }), user.cookie);
    const location = res.headers.get('location') ?? '';
    expect(location).toContain(`iss=${encodeURIComponent(server.config.publicUrl)}`);
    expect(callbackParams(res).get('iss')).toBe(server.config.publicUrl);
  });

  it('RFC 6749 §4.1.2.1: the error goes to the requested (registered) redirect URI, not another one', async () => {
    const res = await browserGet(
      authorizeUrl(server, { clientId, redirectUri: 'https://app.example.com/cb' }),
      user.cookie,
    );
    expect(res.status).toBe(302);
    expect(res.headers.get('location')?.startsWith('https://app.example.com/cb?')).toBe(true);
  });

  it('RFC 6749 §4.1.2.1: an oversize state (> 2048 characters) → invalid_request, not echoed', async () => {
    const res = await browserGet(
      authorizeUrl(server, { clientId, challenge, state: 's'.repeat(3000) }),
      user.cookie,
    );
    expect(res.status).toBe(302);
    const params = callbackParams(res);
    expect(params.get('error')).toBe('invalid_request');
    expect(params.has('state')).toBe(false);
    expect(params.get('iss')).toBe(server.config.publicUrl);
  });

  it('RFC 6749 §4.1.2.1: without a state no state is returned', async () => {
    const res = await browserGet(authorizeUrl(server, { clientId, state: null }), user.cookie);
    expect(res.status).toBe(302);
    expect(callbackParams(res).has('state')).toBe(false);
    expect(callbackParams(res).get('iss')).toBe(server.config.publicUrl);
  });
});

describe('scopes (DESIGN §4, RFC 6749 §3.3)', () => {
  it('DESIGN §4: unknown scopes (openid profile email offline_access) are ignored, not refused', async () => {
    const p = pkce();
    const c = await registerClient(server);
    const scope = 'openid profile email offline_access searches:read';
    const { page, html, decision } = await consent(
      server,
      user,
      authorizeUrl(server, { clientId: c.client_id, challenge: p.challenge, scope }),
    );
    expect(page.status).toBe(200);
    expect(html).toContain('searches:read');
    expect(html).not.toContain('offline_access');
    expect(html).not.toContain('agent:write');
    const code = callbackParams(decision as Response).get('code') as string;
    const tokens = await exchangeCode(server, { clientId: c.client_id, code, verifier: p.verifier });
    expect(tokens.status).toBe(200);
    expect(tokens.body.scope).toBe('searches:read');
  });

  it('DESIGN §4: no scope parameter means all six scopes', async () => {
    const p = pkce();
    const c = await registerClient(server);
    const { code } = await authorizeCode(server, user, { clientId: c.client_id, challenge: p.challenge });
    const tokens = await exchangeCode(server, { clientId: c.client_id, code, verifier: p.verifier });
    expect(tokens.body.scope).toBe(SCOPES.join(' '));
  });

  it('DESIGN §4: only unknown scopes asked for means all six scopes (nothing refused)', async () => {
    const p = pkce();
    const c = await registerClient(server);
    const { code } = await authorizeCode(server, user, {
      clientId: c.client_id,
      challenge: p.challenge,
      scope: 'openid offline_access',
    });
    const tokens = await exchangeCode(server, { clientId: c.client_id, code, verifier: p.verifier });
    expect(tokens.body.scope).toBe(SCOPES.join(' '));
  });
});

describe('detours (DESIGN §4, §6)', () => {
  it('DESIGN §4: a signed-out browser → 303 to /sign-in?next=<the authorize request>', async () => {
    const url = authorizeUrl(server, { clientId, challenge, state: 'keep-me' });
    const res = await browserGet(url);
    expect(res.status).toBe(303);
    const location = new URL(res.headers.get('location') ?? '', server.url);
    expect(location.pathname).toBe('/sign-in');
    const next = location.searchParams.get('next') ?? '';
    expect(next.startsWith('/authorize?')).toBe(true);
    const original = new URL(url);
    expect(next).toBe(`${original.pathname}${original.search}`);
  });

  it('DESIGN §4: a signed-in user without upstream credentials → 303 to /account/credentials?next=…', async () => {
    const bare = await signedInUser(server, { upstreamToken: null });
    const url = authorizeUrl(server, { clientId, challenge });
    const res = await browserGet(url, bare.cookie);
    expect(res.status).toBe(303);
    const location = new URL(res.headers.get('location') ?? '', server.url);
    expect(location.pathname).toBe('/account/credentials');
    const original = new URL(url);
    expect(location.searchParams.get('next')).toBe(`${original.pathname}${original.search}`);
  });

  it('DESIGN §4: authorization redirects use 302/303, never 307', async () => {
    const seen: number[] = [];
    const cases = [
      browserGet(authorizeUrl(server, { clientId, challenge })), // sign-in detour
      browserGet(authorizeUrl(server, { clientId }), user.cookie), // error to the client
    ];
    for (const res of await Promise.all(cases)) seen.push(res.status);
    const p = pkce();
    const c = await registerClient(server);
    const first = await consent(
      server,
      user,
      authorizeUrl(server, { clientId: c.client_id, challenge: p.challenge }),
    );
    seen.push((first.decision as Response).status);
    const denied = await consent(
      server,
      user,
      authorizeUrl(server, { clientId: (await registerClient(server)).client_id, challenge: p.challenge }),
      { decision: 'deny' },
    );
    seen.push((denied.decision as Response).status);
    const remembered = await browserGet(
      authorizeUrl(server, { clientId: c.client_id, challenge: p.challenge }),
      user.cookie,
    );
    seen.push(remembered.status);
    for (const status of seen) expect([302, 303]).toContain(status);
  });
});
