import { describe, expect, it } from 'vitest';
import { oauthFixture } from '../helpers/oauth-fixture.js';
import {
  authorizeCode,
  exchangeCode,
  freshAddress,
  mcpStatus,
  pkce,
  registerClient,
  revokeRequest,
  tokenRequest,
} from '../helpers/oauth-http.js';

const fx = oauthFixture();

type Method = 'none' | 'client_secret_basic' | 'client_secret_post';

function basic(id: string, secret: string) {
  // RFC 6749 §2.3.1: each part form-urlencoded, then base64.
  const enc = (v: string) => encodeURIComponent(v).replace(/%20/g, '+');
  return { authorization: `Basic ${Buffer.from(`${enc(id)}:${enc(secret)}`).toString('base64')}` };
}

/** Client credentials for a request, the way the registered method says. */
function credentials(
  method: Method,
  id: string,
  secret: string | undefined,
): { params: Record<string, string>; headers: Record<string, string> } {
  if (method === 'client_secret_basic') return { params: {}, headers: basic(id, secret ?? '') };
  if (method === 'client_secret_post')
    return { params: { client_id: id, client_secret: secret ?? '' }, headers: {} };
  return { params: { client_id: id }, headers: {} };
}

async function clientWith(method: Method) {
  const c = await registerClient(fx.server, { token_endpoint_auth_method: method }, freshAddress());
  return { id: c.client_id, secret: c.client_secret };
}

async function codeFor(clientId: string) {
  const p = pkce();
  const { code } = await authorizeCode(fx.server, fx.user, { clientId, challenge: p.challenge });
  return { code, verifier: p.verifier };
}

function codeParams(code: string, verifier: string) {
  return {
    grant_type: 'authorization_code',
    code,
    redirect_uri: 'http://localhost:3000/callback',
    code_verifier: verifier,
    resource: fx.server.config.resourceUrl,
  };
}

describe('every advertised auth method works (RFC 8414 §2, RFC 6749 §2.3.1, RFC 7009 §2.1)', () => {
  it('RFC 8414 §2: each of token_endpoint_auth_methods_supported works at /token (code and refresh) and /revoke', async () => {
    const meta = (await (await fetch(`${fx.server.url}/.well-known/oauth-authorization-server`)).json()) as {
      token_endpoint_auth_methods_supported: Method[];
      revocation_endpoint_auth_methods_supported: Method[];
    };
    expect(meta.token_endpoint_auth_methods_supported.length).toBeGreaterThan(0);
    expect(meta.revocation_endpoint_auth_methods_supported).toEqual(
      meta.token_endpoint_auth_methods_supported,
    );
    for (const method of meta.token_endpoint_auth_methods_supported) {
      const client = await clientWith(method);
      expect(client.secret === undefined, method).toBe(method === 'none');
      const auth = credentials(method, client.id, client.secret);
      const { code, verifier } = await codeFor(client.id);
      const tokens = await tokenRequest(
        fx.server,
        { ...codeParams(code, verifier), ...auth.params },
        auth.headers,
      );
      expect(tokens.status, `${method} code exchange`).toBe(200);
      const refreshed = await tokenRequest(
        fx.server,
        { grant_type: 'refresh_token', refresh_token: tokens.body.refresh_token as string, ...auth.params },
        auth.headers,
      );
      expect(refreshed.status, `${method} refresh`).toBe(200);
      const access = refreshed.body.access_token as string;
      expect(await mcpStatus(fx.server, access)).toBe(200);
      const revoked = await revokeRequest(
        fx.server,
        { token: refreshed.body.refresh_token as string, ...auth.params },
        auth.headers,
      );
      expect(revoked.status, `${method} revoke`).toBe(200);
      expect(await mcpStatus(fx.server, access)).toBe(401);
    }
  });
});

describe('failed client authentication → 401 invalid_client (RFC 6749 §5.2)', () => {
  it('RFC 6749 §5.2: a wrong secret with Basic → 401 invalid_client with WWW-Authenticate: Basic', async () => {
    const client = await clientWith('client_secret_basic');
    const { code, verifier } = await codeFor(client.id);
    const res = await tokenRequest(fx.server, codeParams(code, verifier), basic(client.id, 'sim_cs_wrong'));
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('invalid_client');
    expect(res.headers.get('www-authenticate')).toMatch(/^Basic/);
    expect(res.headers.get('cache-control')).toContain('no-store');
  });

  it('RFC 6749 §5.2: a wrong secret in the body → 401 invalid_client, without a challenge for a scheme it did not use', async () => {
    const client = await clientWith('client_secret_post');
    const { code, verifier } = await codeFor(client.id);
    const res = await tokenRequest(fx.server, {
      ...codeParams(code, verifier),
      client_id: client.id,
      client_secret: 'sim_cs_wrong',
    });
    expect(res.headers.get('www-authenticate')).toBeNull();
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('invalid_client');
  });

  it('RFC 6749 §3.2.1: a confidential client that sends no secret → 401 invalid_client, code not burned', async () => {
    const client = await clientWith('client_secret_basic');
    const { code, verifier } = await codeFor(client.id);
    const res = await tokenRequest(fx.server, { ...codeParams(code, verifier), client_id: client.id });
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('invalid_client');
    const ok = await tokenRequest(
      fx.server,
      codeParams(code, verifier),
      basic(client.id, client.secret ?? ''),
    );
    expect(ok.status).toBe(200);
  });

  it('RFC 7591 §2: a client must use the method it registered (basic client using post → 401)', async () => {
    const client = await clientWith('client_secret_basic');
    const { code, verifier } = await codeFor(client.id);
    const res = await tokenRequest(fx.server, {
      ...codeParams(code, verifier),
      client_id: client.id,
      client_secret: client.secret ?? '',
    });
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('invalid_client');
  });

  it('RFC 7591 §2: a public client that sends a secret → 401 invalid_client', async () => {
    const client = await clientWith('none');
    const { code, verifier } = await codeFor(client.id);
    const res = await tokenRequest(fx.server, codeParams(code, verifier), basic(client.id, 'sim_cs_made_up'));
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('invalid_client');
  });

  it('RFC 6749 §2.3: credentials in both the header and the body → 400 invalid_request', async () => {
    const client = await clientWith('client_secret_basic');
    const { code, verifier } = await codeFor(client.id);
    const res = await tokenRequest(
      fx.server,
      { ...codeParams(code, verifier), client_secret: client.secret ?? '' },
      basic(client.id, client.secret ?? ''),
    );
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_request');
  });

  it('RFC 6749 §5.2: a malformed Authorization header → 401 invalid_client', async () => {
    const res = await tokenRequest(
      fx.server,
      { grant_type: 'refresh_token', refresh_token: 'sim_rt_x' },
      { authorization: 'Basic !!!not-base64' },
    );
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('invalid_client');
  });

  it('RFC 6749 §5.2: no client identification at all → 401 invalid_client', async () => {
    const res = await tokenRequest(fx.server, { grant_type: 'refresh_token', refresh_token: 'sim_rt_x' });
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('invalid_client');
  });

  it('RFC 6749 §5.2: a confidential client’s refresh without its secret → 401, the refresh token still works after', async () => {
    const client = await clientWith('client_secret_post');
    const { code, verifier } = await codeFor(client.id);
    const tokens = await tokenRequest(fx.server, {
      ...codeParams(code, verifier),
      client_id: client.id,
      client_secret: client.secret ?? '',
    });
    const refreshToken = tokens.body.refresh_token as string;
    const bad = await tokenRequest(fx.server, {
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
      client_id: client.id,
    });
    expect(bad.status).toBe(401);
    const good = await tokenRequest(fx.server, {
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
      client_id: client.id,
      client_secret: client.secret ?? '',
    });
    expect(good.status).toBe(200);
  });

  it('RFC 6749 §2.3.1: a public client exchanging its code needs only client_id', async () => {
    const client = await clientWith('none');
    const { code, verifier } = await codeFor(client.id);
    expect((await exchangeCode(fx.server, { clientId: client.id, code, verifier })).status).toBe(200);
  });
});
