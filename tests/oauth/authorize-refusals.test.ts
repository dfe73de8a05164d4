// /authorize refusals: client and redirect errors shown, never redirected; loopback redirects; no open
// redirect.
import { beforeAll, describe, expect, it } from 'vitest';
import { authorizeFixture, expectRedirectedError, expectShown } from '../helpers/authorize-fixture.js';
import {
  authorizeCode,
  authorizeUrl,
  browserGet,
  exchangeCode,
  pkce,
  registerClient,
} from '../helpers/oauth-http.js';

const fx = authorizeFixture();
const { challenge } = pkce();

describe('client and redirect errors are shown, never redirected (RFC 6749 §4.1.2.1)', () => {
  it('RFC 6749 §4.1.2.1: a missing client_id → HTML 400', async () => {
    const url = new URL(authorizeUrl(fx.server, { clientId: 'x', challenge }));
    url.searchParams.delete('client_id');
    await expectShown(await browserGet(url.toString(), fx.user.cookie), /client_id is missing/);
  });

  it('RFC 6749 §4.1.2.1: an unknown client_id → HTML 400, not redirected', async () => {
    const res = await browserGet(
      authorizeUrl(fx.server, { clientId: 'sim_client_unknown', challenge }),
      fx.user.cookie,
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
      const res = await browserGet(
        authorizeUrl(fx.server, { clientId: fx.clientId, challenge, redirectUri }),
        fx.user.cookie,
      );
      await expectShown(res, /did not register/);
    }
  });

  it('RFC 8252 §7.1: a redirect URI registered before its scheme was refused is not used (HTML 400)', async () => {
    const stale = await registerClient(fx.server);
    await fx.server.sql.run(
      'UPDATE oauth_clients SET redirect_uris = ? WHERE id = ?',
      JSON.stringify(['search-ms:query=x']),
      stale.client_id,
    );
    const res = await browserGet(
      authorizeUrl(fx.server, { clientId: stale.client_id, challenge, redirectUri: 'search-ms:query=x' }),
      fx.user.cookie,
    );
    await expectShown(res, /did not register/);
  });

  it('RFC 6749 §3.1.2.3: a missing redirect_uri with several registered → HTML 400', async () => {
    const url = new URL(authorizeUrl(fx.server, { clientId: fx.clientId, challenge }));
    url.searchParams.delete('redirect_uri');
    await expectShown(await browserGet(url.toString(), fx.user.cookie), /redirect_uri is missing/);
  });

  it('RFC 6749 §3.1.2.3: a missing redirect_uri with exactly one registered uses that one', async () => {
    const single = await registerClient(fx.server);
    const url = new URL(authorizeUrl(fx.server, { clientId: single.client_id, challenge }));
    url.searchParams.delete('redirect_uri');
    const res = await browserGet(url.toString(), fx.user.cookie);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('localhost:3000');
  });

  it('RFC 6749 §3.1: a repeated parameter → HTML 400', async () => {
    const url = new URL(authorizeUrl(fx.server, { clientId: fx.clientId, challenge }));
    url.searchParams.append('redirect_uri', 'https://evil.example/cb');
    await expectShown(await browserGet(url.toString(), fx.user.cookie), /repeats the parameter redirect_uri/);
  });

  it('RFC 6749 §4.1.2.1: client errors are shown even to a signed-out browser (no sign-in detour)', async () => {
    const res = await browserGet(authorizeUrl(fx.server, { clientId: 'sim_client_unknown', challenge }));
    await expectShown(res, /not registered here/);
  });
});

describe('loopback redirects (RFC 8252 §7.3)', () => {
  let loopback: string;
  beforeAll(async () => {
    loopback = (
      await registerClient(fx.server, {
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
        authorizeUrl(fx.server, { clientId: loopback, challenge, redirectUri }),
        fx.user.cookie,
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
        authorizeUrl(fx.server, { clientId: loopback, challenge, redirectUri }),
        fx.user.cookie,
      );
      expect(res.status, redirectUri).toBe(400);
      expect(res.headers.get('location')).toBeNull();
    }
  });

  it('RFC 8252 §7.3: the code from a loopback redirect on another port exchanges with that exact redirect_uri', async () => {
    const p = pkce();
    const redirectUri = 'http://127.0.0.1:40123/cb';
    const { code, redirect } = await authorizeCode(fx.server, fx.user, {
      clientId: loopback,
      challenge: p.challenge,
      redirectUri,
    });
    expect(redirect.headers.get('location')?.startsWith(`${redirectUri}?`)).toBe(true);
    const tokens = await exchangeCode(fx.server, {
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
    return (await registerClient(fx.server, { redirect_uris: ['https://evil.example/landing'] })).client_id;
  }

  it('before anyone signed in, an error for a freshly registered client is shown, not redirected', async () => {
    const stranger = await strangersClient();
    for (const url of [
      authorizeUrl(fx.server, { clientId: stranger, redirectUri: 'https://evil.example/landing' }),
      authorizeUrl(fx.server, {
        clientId: stranger,
        challenge,
        redirectUri: 'https://evil.example/landing',
        extra: { prompt: 'none' },
      }),
      authorizeUrl(fx.server, {
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
      authorizeUrl(fx.server, { clientId: stranger, redirectUri: 'https://evil.example/landing' }),
      fx.user.cookie,
    );
    await expectShown(res, /code_challenge is required/);
  });

  it('once the person has connected the client, its errors go back to it with state and iss', async () => {
    const known = (await registerClient(fx.server)).client_id;
    await authorizeCode(fx.server, fx.user, { clientId: known, challenge });
    const res = await browserGet(authorizeUrl(fx.server, { clientId: known }), fx.user.cookie);
    expectRedirectedError(fx.server, res, 'invalid_request');
    // The same request from a browser where nobody is signed in is not trusted.
    await expectShown(await browserGet(authorizeUrl(fx.server, { clientId: known })), /cannot be accepted/);
  });
});
