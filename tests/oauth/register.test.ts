import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '../../src/security/tokens.js';
import { tokenRequest } from '../helpers/oauth-http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  // TRUST_PROXY lets each test come from its own address, so the registration rate limit is tested
  // on its own and does not leak into the other tests.
  server = await startTestServer({ env: { TRUST_PROXY: 'true' } });
});
afterAll(async () => {
  await server?.close();
});

let ip = 0;
function nextIp() {
  ip += 1;
  return `198.51.100.${ip}`;
}

async function register(
  body: string | Record<string, unknown>,
  options: { contentType?: string; from?: string } = {},
) {
  const res = await fetch(`${server.url}/register`, {
    method: 'POST',
    headers: {
      'content-type': options.contentType ?? 'application/json',
      'x-forwarded-for': options.from ?? nextIp(),
    },
    body:
      typeof body === 'string'
        ? body
        : JSON.stringify({
            client_name: 'Register Test',
            redirect_uris: ['http://localhost:3000/callback'],
            token_endpoint_auth_method: 'none',
            ...body,
          }),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
}

async function clientRow(clientId: string) {
  return (await server.sql.get('SELECT * FROM oauth_clients WHERE id = ?', clientId)) as
    | Record<string, unknown>
    | undefined;
}

describe('dynamic client registration (RFC 7591)', () => {
  it('RFC 7591 §3.2.1: a public client (token_endpoint_auth_method none) gets a client_id and no secret', async () => {
    const res = await register({});
    expect(res.status).toBe(201);
    expect(typeof res.body.client_id).toBe('string');
    expect(res.body.client_secret).toBeUndefined();
    expect(res.body.token_endpoint_auth_method).toBe('none');
    expect(res.body.redirect_uris).toEqual(['http://localhost:3000/callback']);
    expect(res.headers.get('cache-control')).toContain('no-store');
    expect((await clientRow(res.body.client_id as string))?.secret_hash).toBeNull();
  });

  it('RFC 7591 §2: a client that names no auth method is confidential (client_secret_basic) and gets a secret', async () => {
    const res = await register({ token_endpoint_auth_method: undefined });
    expect(res.status).toBe(201);
    expect(res.body.token_endpoint_auth_method).toBe('client_secret_basic');
    expect(typeof res.body.client_secret).toBe('string');
    expect(res.body.client_secret_expires_at).toBe(0);
  });

  it('RFC 7591 §3.2.1: a client_secret_post client gets a secret', async () => {
    const res = await register({ token_endpoint_auth_method: 'client_secret_post' });
    expect(res.status).toBe(201);
    expect(res.body.token_endpoint_auth_method).toBe('client_secret_post');
    expect(typeof res.body.client_secret).toBe('string');
  });

  it('RFC 7591 §3.2.1: the secret is stored only as its hash and returned only once', async () => {
    const res = await register({ token_endpoint_auth_method: 'client_secret_basic' });
    const secret = res.body.client_secret as string;
    const row = await clientRow(res.body.client_id as string);
    expect(row?.secret_hash).toBe(hashToken(secret));
    expect(JSON.stringify(row)).not.toContain(secret);
    // No endpoint reads a registration back (RFC 7592 is not implemented), so nothing repeats it.
    const read = await fetch(`${server.url}/register?client_id=${res.body.client_id as string}`);
    expect(read.status).not.toBe(200);
    expect(await read.text()).not.toContain(secret);
    // Registering the same metadata again is a new client with a new secret.
    const again = await register({ token_endpoint_auth_method: 'client_secret_basic' });
    expect(again.body.client_id).not.toBe(res.body.client_id);
    expect(again.body.client_secret).not.toBe(secret);
  });

  it('RFC 7591 §2: a refresh_token grant type is always registered (refresh tokens are always issued)', async () => {
    const res = await register({ grant_types: ['authorization_code'] });
    expect(res.status).toBe(201);
    expect(res.body.grant_types).toEqual(['authorization_code', 'refresh_token']);
  });
});

describe('application_type (OpenID DCR §2)', () => {
  it('an explicit application_type is accepted as given', async () => {
    const res = await register({ application_type: 'web', redirect_uris: ['http://127.0.0.1/cb'] });
    expect(res.status).toBe(201);
    expect(res.body.application_type).toBe('web');
    expect((await clientRow(res.body.client_id as string))?.application_type).toBe('web');
  });

  it('inferred native for loopback-only redirects', async () => {
    const res = await register({ redirect_uris: ['http://localhost:3000/callback', 'http://127.0.0.1/cb'] });
    expect(res.body.application_type).toBe('native');
  });

  it('RFC 8252 §7.1: inferred native for private-use scheme redirects, which are accepted', async () => {
    const res = await register({ redirect_uris: ['com.example.app:/oauth/callback'] });
    expect(res.status).toBe(201);
    expect(res.body.application_type).toBe('native');
  });

  it('inferred web for https redirects (also when mixed with loopback)', async () => {
    const https = await register({ redirect_uris: ['https://claude.ai/api/mcp/auth_callback'] });
    expect(https.body.application_type).toBe('web');
    const mixed = await register({ redirect_uris: ['https://app.example.com/cb', 'http://localhost/cb'] });
    expect(mixed.body.application_type).toBe('web');
  });

  it('OpenID DCR §2: an application_type other than web or native → 400 invalid_client_metadata', async () => {
    const res = await register({ application_type: 'desktop' });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_client_metadata');
  });
});

describe('redirect URI validation (RFC 7591 §2, §3.2.2; RFC 6749 §3.1.2; OAuth 2.1 §7.5.1)', () => {
  const bad: Array<[string, string]> = [
    ['a javascript: URI', 'javascript:alert(1)'],
    ['a data: URI', 'data:text/html,<script>alert(1)</script>'],
    ['a URI with a fragment (RFC 6749 §3.1.2)', 'https://app.example.com/cb#frag'],
    ['a URI with userinfo', 'https://user:pass@app.example.com/cb'],
    ['http on a non-loopback host (OAuth 2.1 §7.5.1)', 'http://app.example.com/cb'],
    ['a relative URI (RFC 6749 §3.1.2)', '/callback'],
  ];
  for (const [what, uri] of bad) {
    it(`RFC 7591 §3.2.2: ${what} → 400 invalid_redirect_uri`, async () => {
      const res = await register({ redirect_uris: ['https://app.example.com/ok', uri] });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('invalid_redirect_uri');
      expect(typeof res.body.error_description).toBe('string');
    });
  }

  const notReverseDomain = [
    'search-ms:query=x&crumb=location:\\\\evil.example\\share',
    'ms-msdt:/id PCWDiagnostic',
    'ms-settings:privacy',
    'ms-word.evil:ofe|u|https://evil.example/x.docx',
    'x-apple.systempreferences:com.apple.preference.security',
    'view-source:https://app.example.com/cb',
    'chrome:settings',
    'mailto:victim@example.com',
    'myapp:/callback',
  ];
  for (const uri of notReverseDomain) {
    it(`RFC 8252 §7.1: private-use schemes only in reverse-domain form (or a known client's): ${uri.split(':')[0]}: → 400 invalid_redirect_uri`, async () => {
      const res = await register({ redirect_uris: [uri] });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('invalid_redirect_uri');
      expect(res.body.error_description).toMatch(/reverse-domain|operating-system handler|forbidden scheme/);
    });
  }

  it("RFC 8252 §7.1: reverse-domain schemes and the known clients' schemes (cursor, vscode, …) are accepted", async () => {
    const res = await register({
      redirect_uris: [
        'com.example.app:/oauth/callback',
        'cursor://anysphere.cursor-mcp/oauth/callback',
        'vscode://vscode.mcp/callback',
        'vscode-insiders://vscode.mcp/callback',
        'windsurf://codeium.windsurf/mcp/callback',
        'zed://mcp/oauth/callback',
      ],
    });
    expect(res.status).toBe(201);
    expect(res.body.application_type).toBe('native');
  });

  it('RFC 8252 §7.3 / §8.3: http on localhost, 127.0.0.1 and [::1] is accepted', async () => {
    const res = await register({
      redirect_uris: ['http://localhost/cb', 'http://127.0.0.1:8080/cb', 'http://[::1]:9000/cb'],
    });
    expect(res.status).toBe(201);
  });

  it('claude.ai / claude.com and ChatGPT connector callbacks are accepted', async () => {
    const res = await register({
      redirect_uris: [
        'https://claude.ai/api/mcp/auth_callback',
        'https://claude.com/api/mcp/auth_callback',
        'https://chatgpt.com/connector_platform_oauth_redirect/abc123',
      ],
    });
    expect(res.status).toBe(201);
  });
});

describe('malformed registrations (RFC 7591 §3.2.2)', () => {
  it('RFC 7591 §3.2.2: a body that is not JSON → 400 invalid_client_metadata', async () => {
    const res = await register('{"redirect_uris": [', {});
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_client_metadata');
  });

  it('RFC 7591 §3.1: a JSON array instead of an object → 400 invalid_client_metadata', async () => {
    const res = await register('["http://localhost/cb"]');
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_client_metadata');
  });

  it('RFC 7591 §3.1: a Content-Type other than application/json → 400 invalid_client_metadata', async () => {
    const res = await register(JSON.stringify({ redirect_uris: ['http://localhost/cb'] }), {
      contentType: 'application/x-www-form-urlencoded',
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_client_metadata');
  });

  it('RFC 7591 §3.2.2: an oversize body (> 16 KB) → 400 invalid_client_metadata', async () => {
    const res = await register({ client_name: 'x', software_id: 'y', padding: 'z'.repeat(20_000) });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_client_metadata');
  });

  it('RFC 7591 §2: no redirect_uris → 400', async () => {
    const res = await register({ redirect_uris: [] });
    expect(res.status).toBe(400);
    expect(['invalid_redirect_uri', 'invalid_client_metadata']).toContain(res.body.error);
  });

  it('RFC 7591 §2: an unsupported grant type → 400 invalid_client_metadata', async () => {
    const res = await register({ grant_types: ['client_credentials'] });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_client_metadata');
  });

  it('RFC 7591 §2: an unsupported token_endpoint_auth_method → 400 invalid_client_metadata', async () => {
    const res = await register({ token_endpoint_auth_method: 'private_key_jwt' });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_client_metadata');
  });

  it('RFC 7591 §3.2.1: an unusable cosmetic URL (http on localhost, not a URL) is dropped, never a reason to refuse', async () => {
    const res = await register({
      client_uri: 'http://localhost:8000',
      logo_uri: 'not a url',
      tos_uri: 42,
      policy_uri: 'https://app.example.com/privacy',
    });
    expect(res.status).toBe(201);
    expect(res.body).not.toHaveProperty('client_uri');
    expect(res.body).not.toHaveProperty('logo_uri');
    expect(res.body).not.toHaveProperty('tos_uri');
    expect(res.body.policy_uri).toBe('https://app.example.com/privacy');
    const row = await clientRow(res.body.client_id as string);
    expect(row?.client_uri).toBeNull();
    expect(row?.logo_uri).toBeNull();
    expect(JSON.parse(row?.metadata as string)).not.toHaveProperty('client_uri');
  });

  it('RFC 7591 §2: usable https cosmetic URLs are kept', async () => {
    const res = await register({
      client_uri: 'https://app.example.com',
      logo_uri: 'https://app.example.com/logo.png',
    });
    expect(res.status).toBe(201);
    expect(res.body.client_uri).toBe('https://app.example.com');
    expect((await clientRow(res.body.client_id as string))?.logo_uri).toBe(
      'https://app.example.com/logo.png',
    );
  });

  it('RFC 7591 §2: unknown metadata members are ignored, not refused', async () => {
    const res = await register({ some_future_member: { x: 1 } });
    expect(res.status).toBe(201);
  });
});

describe('DCR hygiene', () => {
  it('registrations are rate limited per address → 429 with Retry-After', async () => {
    const from = '203.0.113.77';
    const statuses: number[] = [];
    let limited: Awaited<ReturnType<typeof register>> | null = null;
    for (let i = 0; i < 25 && !limited; i++) {
      const res = await register({}, { from });
      statuses.push(res.status);
      if (res.status === 429) limited = res;
    }
    expect(statuses.slice(0, 20).every((s) => s === 201)).toBe(true);
    expect(limited?.status).toBe(429);
    expect(Number(limited?.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another address is not affected.
    expect((await register({})).status).toBe(201);
  });

  it('RFC 6749 §5.2: an unknown client_id at the token endpoint → 401 invalid_client (so it re-registers)', async () => {
    const res = await tokenRequest(server, {
      grant_type: 'authorization_code',
      code: 'sim_ac_whatever',
      redirect_uri: 'http://localhost:3000/callback',
      code_verifier: 'v'.repeat(43),
      client_id: 'sim_client_doesnotexist',
    });
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('invalid_client');
  });

  it('a client deleted by housekeeping is unknown at the token endpoint → 401 invalid_client', async () => {
    const res = await register({});
    await server.sql.run('DELETE FROM oauth_clients WHERE id = ?', res.body.client_id);
    const token = await tokenRequest(server, {
      grant_type: 'refresh_token',
      refresh_token: 'sim_rt_whatever',
      client_id: res.body.client_id as string,
    });
    expect(token.status).toBe(401);
    expect(token.body.error).toBe('invalid_client');
  });
});
