import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/oauth/scopes.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

async function getJson(path: string) {
  const res = await fetch(`${server.url}${path}`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  return { res, body: (await res.json()) as Record<string, unknown> };
}

describe('authorization server metadata (RFC 8414)', () => {
  it('RFC 8414 §3: the document is served at /.well-known/oauth-authorization-server', async () => {
    const { body } = await getJson('/.well-known/oauth-authorization-server');
    expect(body.authorization_endpoint).toBe(`${server.url}/authorize`);
    expect(body.token_endpoint).toBe(`${server.url}/token`);
    expect(body.revocation_endpoint).toBe(`${server.url}/revoke`);
  });

  it('OIDC Discovery §4: /.well-known/openid-configuration serves the identical document', async () => {
    const a = await getJson('/.well-known/oauth-authorization-server');
    const b = await getJson('/.well-known/openid-configuration');
    expect(b.body).toEqual(a.body);
  });

  it('RFC 8414 §3.3: issuer is byte-identical to PUBLIC_URL, with no trailing slash', async () => {
    const { body } = await getJson('/.well-known/oauth-authorization-server');
    expect(body.issuer).toBe(server.config.publicUrl);
    expect(body.issuer).toBe(server.url);
    expect(String(body.issuer).endsWith('/')).toBe(false);
  });

  it('RFC 8414 §2: every endpoint is under the issuer', async () => {
    const { body } = await getJson('/.well-known/oauth-authorization-server');
    for (const key of Object.keys(body).filter((k) => k.endsWith('_endpoint'))) {
      expect(String(body[key]).startsWith(`${server.url}/`), key).toBe(true);
    }
  });

  it('RFC 7636 §4.2: code_challenge_methods_supported is S256 only', async () => {
    const { body } = await getJson('/.well-known/oauth-authorization-server');
    expect(body.code_challenge_methods_supported).toEqual(['S256']);
  });

  it('RFC 8414 §2: only implemented auth methods are advertised (none, client_secret_basic, client_secret_post)', async () => {
    const { body } = await getJson('/.well-known/oauth-authorization-server');
    const methods = ['none', 'client_secret_basic', 'client_secret_post'];
    expect([...(body.token_endpoint_auth_methods_supported as string[])].sort()).toEqual([...methods].sort());
    expect([...(body.revocation_endpoint_auth_methods_supported as string[])].sort()).toEqual(
      [...methods].sort(),
    );
  });

  it('RFC 8414 §2: only the code flow, the query response mode and the two implemented grants are advertised', async () => {
    const { body } = await getJson('/.well-known/oauth-authorization-server');
    expect(body.response_types_supported).toEqual(['code']);
    expect(body.response_modes_supported).toEqual(['query']);
    expect([...(body.grant_types_supported as string[])].sort()).toEqual([
      'authorization_code',
      'refresh_token',
    ]);
  });

  it('RFC 9207 §3: authorization_response_iss_parameter_supported is true', async () => {
    const { body } = await getJson('/.well-known/oauth-authorization-server');
    expect(body.authorization_response_iss_parameter_supported).toBe(true);
  });

  it('RFC 7591 §3 / CIMD draft §5: registration_endpoint and client_id_metadata_document_supported are advertised', async () => {
    const { body } = await getJson('/.well-known/oauth-authorization-server');
    expect(body.registration_endpoint).toBe(`${server.url}/register`);
    expect(body.client_id_metadata_document_supported).toBe(true);
  });

  it('scopes_supported lists exactly the six scopes', async () => {
    const { body } = await getJson('/.well-known/oauth-authorization-server');
    expect(body.scopes_supported).toEqual([...SCOPES]);
    expect(SCOPES).toHaveLength(6);
  });
});

describe('protected resource metadata (RFC 9728)', () => {
  it('RFC 9728 §3.1: served at the path-suffixed URL /.well-known/oauth-protected-resource/mcp', async () => {
    const { body } = await getJson('/.well-known/oauth-protected-resource/mcp');
    expect(body.resource).toBe(`${server.config.publicUrl}/mcp`);
  });

  it('RFC 9728 §3.1: also served at the root, identical', async () => {
    const a = await getJson('/.well-known/oauth-protected-resource/mcp');
    const b = await getJson('/.well-known/oauth-protected-resource');
    expect(b.body).toEqual(a.body);
  });

  it('RFC 9728 §2: resource is PUBLIC_URL + "/mcp" and authorization_servers is exactly [issuer]', async () => {
    const { body } = await getJson('/.well-known/oauth-protected-resource/mcp');
    const as = await getJson('/.well-known/oauth-authorization-server');
    expect(body.resource).toBe(server.config.resourceUrl);
    expect(body.resource).toBe(`${server.url}/mcp`);
    expect(body.authorization_servers).toEqual([as.body.issuer]);
    expect(body.authorization_servers).toEqual([server.config.publicUrl]);
    expect(body.scopes_supported).toEqual([...SCOPES]);
    expect(body.bearer_methods_supported).toEqual(['header']);
  });

  it('RFC 9728 §3 / RFC 8414 §3: the documents are readable cross-origin by browser-based clients', async () => {
    const res = await fetch(`${server.url}/.well-known/oauth-protected-resource/mcp`, {
      headers: { origin: 'https://client.example' },
    });
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
  });
});
