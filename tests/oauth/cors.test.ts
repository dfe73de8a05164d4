/**
 * CORS on the OAuth endpoints a browser-based client calls from its own origin (RFC 8414 §3,
 * RFC 9728 §3, RFC 7591 §3, RFC 6749 §3.2, RFC 7009 §2; the MCP authorization spec): any origin,
 * no credentials. Preflights answer 204 with what may be sent; answers carry the origin header,
 * successes and refusals alike.
 */
import { describe, expect, it } from 'vitest';
import { oauthFixture } from '../helpers/oauth-fixture.js';
import { freshAddress } from '../helpers/oauth-http.js';

const fx = oauthFixture({ client: true });
const ORIGIN = 'https://client.example';

async function preflight(path: string, method: string, requestHeaders: string) {
  const res = await fetch(`${fx.server.url}${path}`, {
    method: 'OPTIONS',
    headers: {
      origin: ORIGIN,
      'access-control-request-method': method,
      'access-control-request-headers': requestHeaders,
    },
  });
  await res.arrayBuffer();
  return res;
}

function post(path: string, body: string, contentType: string, headers: Record<string, string> = {}) {
  return fetch(`${fx.server.url}${path}`, {
    method: 'POST',
    headers: { origin: ORIGIN, 'content-type': contentType, ...headers },
    body,
  });
}

describe('CORS on the OAuth endpoints (any origin, no credentials)', () => {
  it.each([
    ['/token', 'content-type,authorization'],
    ['/revoke', 'content-type,authorization'],
    ['/register', 'content-type'],
  ])('a preflight of POST %s: 204, any origin, POST, the headers a client sends', async (path, allowed) => {
    const res = await preflight(path, 'POST', 'content-type');
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-allow-methods')).toBe('POST');
    expect(res.headers.get('access-control-allow-headers')?.toLowerCase()).toBe(allowed);
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
  });

  it('a preflight of the metadata: 204, GET, kept for a day', async () => {
    const res = await preflight('/.well-known/oauth-authorization-server', 'GET', '');
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-allow-methods')).toBe('GET');
    expect(res.headers.get('access-control-max-age')).toBe('86400');
  });

  it('/token answers a refresh, and refuses a bad one, with the origin header and no-store', async () => {
    const form = (token: string) =>
      new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: token,
        client_id: fx.clientId,
      }).toString();
    const refused = await post('/token', form('sim_rt_unknown'), 'application/x-www-form-urlencoded');
    expect(refused.status).toBe(400);
    expect(refused.headers.get('access-control-allow-origin')).toBe('*');
    expect(((await refused.json()) as { error: string }).error).toBe('invalid_grant');
  });

  it('/revoke and /register answer with the origin header', async () => {
    const revoked = await post(
      '/revoke',
      new URLSearchParams({ token: 'sim_rt_unknown', client_id: fx.clientId }).toString(),
      'application/x-www-form-urlencoded',
    );
    expect(revoked.status).toBe(200);
    expect(revoked.headers.get('access-control-allow-origin')).toBe('*');
    await revoked.arrayBuffer();
    const registered = await post(
      '/register',
      JSON.stringify({ redirect_uris: ['http://127.0.0.1:7777/cb'], token_endpoint_auth_method: 'none' }),
      'application/json',
      freshAddress(),
    );
    expect(registered.status).toBe(201);
    expect(registered.headers.get('access-control-allow-origin')).toBe('*');
    await registered.arrayBuffer();
  });
});
