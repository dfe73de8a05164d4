/**
 * Hostile input: property-based fuzzing (fast-check) of every public entry point, and the socket
 * limits that cut off oversized and slow requests. The claims: never a 5xx, never a crash, never an
 * issued token, and a slow or unfinished request holds a socket no longer than the limits say.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SandboxServer, startSandboxServer } from '../../src/sandbox/server.js';
import { TOKEN_PREFIXES } from '../../src/security/tokens.js';
import { count, rawExchange, startServer } from '../helpers/gateway.js';
import { issueTestToken } from '../helpers/grants.js';
import { registerClient, type SignedInUser, signedInUser } from '../helpers/oauth-http.js';
import type { TestServer } from '../helpers/server.js';

const LIMITS = {
  headersTimeoutMs: 600,
  requestTimeoutMs: 1_200,
  keepAliveTimeoutMs: 500,
  checkIntervalMs: 100,
};
const RUNS = Number(process.env.FUZZ_RUNS ?? 60);

let sandbox: SandboxServer;
let server: TestServer;
let port: number;
let clientId: string;
let user: SignedInUser;
let bearer: string;
let tokensBefore: number;
const statuses = new Map<string, number[]>();

beforeAll(async () => {
  sandbox = await startSandboxServer({ port: 0, host: '127.0.0.1', speed: 'instant' });
  server = await startServer({
    upstream: { searchUrl: sandbox.searchUrl, agentUrl: sandbox.agentUrl },
    env: { TRUST_PROXY: 'true' },
    limits: LIMITS,
    mcpOptions: { searchMaxWaitMs: 2_000, runMaxWaitMs: 2_000, pollInitialMs: 20, pollMaxMs: 100 },
  });
  port = Number(new URL(server.url).port);
  clientId = (await registerClient(server, {}, { 'x-forwarded-for': '198.18.0.1' })).client_id;
  user = await signedInUser(server, { upstreamToken: sandbox.token });
  bearer = (await issueTestToken(server, { upstreamToken: sandbox.token })).accessToken;
  tokensBefore = await count(server.sql, 'oauth_tokens');
});

afterAll(async () => {
  await server?.close();
  await sandbox?.close();
});

let ipCounter = 0;
/** A new client address per request (TRUST_PROXY=true), so rate limits do not hide deeper paths. */
const freshIp = () => `198.19.${Math.floor(++ipCounter / 250) % 250}.${(ipCounter % 250) + 1}`;

async function send(label: string, path: string, init: RequestInit): Promise<number> {
  const res = await fetch(`${server.url}${path}`, { redirect: 'manual', ...init });
  await res.arrayBuffer();
  const seen = statuses.get(label) ?? [];
  seen.push(res.status);
  statuses.set(label, seen);
  if (res.status >= 500) throw new Error(`${label}: ${res.status} for ${path}`);
  return res.status;
}

// ---- Arbitraries --------------------------------------------------------------------------------

const anyText = fc.oneof(
  fc.string({ maxLength: 80 }),
  fc.string({ unit: 'binary', maxLength: 80 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.constantFrom(
    '',
    ' ',
    '\0',
    '%',
    '%zz',
    '\r\n',
    '../../etc/passwd',
    '<script>',
    "' OR 1=1 --",
    'x'.repeat(5000),
  ),
);

function formOf(keys: string[], values: fc.Arbitrary<string>) {
  return fc.dictionary(fc.oneof(fc.constantFrom(...keys), fc.string({ maxLength: 12 })), values, {
    maxKeys: 10,
  });
}

/** Form values a little closer to real ones, so fuzzing reaches past the first checks. */
const oauthValue = () =>
  fc.oneof(
    anyText,
    fc.constantFrom(
      'authorization_code',
      'refresh_token',
      'client_credentials',
      'S256',
      'plain',
      'code',
      'token',
      'http://localhost:3000/callback',
      'searches:read agent:write',
      'openid offline_access',
    ),
    fc.constant(clientId),
    fc.constant(server.config.resourceUrl),
    fc.string({ minLength: 43, maxLength: 64 }).map((s) => `${TOKEN_PREFIXES.refresh}${s}`),
    fc.string({ minLength: 43, maxLength: 64 }).map((s) => `${TOKEN_PREFIXES.code}${s}`),
  );

const OAUTH_KEYS = [
  'grant_type',
  'code',
  'refresh_token',
  'client_id',
  'client_secret',
  'code_verifier',
  'redirect_uri',
  'resource',
  'scope',
  'token',
  'token_type_hint',
  'response_type',
  'code_challenge',
  'code_challenge_method',
  'state',
];

const contentType = fc.constantFrom(
  'application/x-www-form-urlencoded',
  'application/x-www-form-urlencoded; charset=utf-8',
  'application/json',
  'text/plain',
  'multipart/form-data; boundary=x',
  '',
);

/** A body: a urlencoded form (possibly with repeated keys) or raw bytes. */
const formBody = (keys: string[], values: fc.Arbitrary<string>) =>
  fc.oneof(
    formOf(keys, values).map((f) => new URLSearchParams(f).toString()),
    fc.tuple(formOf(keys, values), fc.constantFrom(...keys), values).map(([f, k, v]) => {
      const p = new URLSearchParams(f);
      p.append(k, v);
      p.append(k, v);
      return p.toString();
    }),
    fc.string({ unit: 'binary', maxLength: 300 }),
  );

const authorization = fc.option(
  fc.oneof(
    fc.tuple(anyText, anyText).map(([a, b]) => `Basic ${Buffer.from(`${a}:${b}`).toString('base64')}`),
    anyText.map((s) => `Bearer ${s}`),
    fc.constantFrom('Basic', 'Basic !!!', 'Bearer', 'Digest x'),
  ),
  { nil: undefined },
);

function headersOf(type: string, auth: string | undefined, extra: Record<string, string> = {}) {
  const h: Record<string, string> = { 'x-forwarded-for': freshIp(), ...extra };
  if (type) h['content-type'] = type;
  if (auth) h.authorization = auth.replace(/[^\t\x20-\x7e]/g, '');
  return h;
}

// ---- Properties ---------------------------------------------------------------------------------

describe('fuzzing never gives a 5xx, a crash or a token', () => {
  it('POST /token', async () => {
    await fc.assert(
      fc.asyncProperty(
        formBody(OAUTH_KEYS, oauthValue()),
        contentType,
        authorization,
        async (body, type, auth) => {
          await send('/token', '/token', { method: 'POST', headers: headersOf(type, auth), body });
        },
      ),
      { numRuns: RUNS * 2 },
    );
  });

  it('POST /revoke', async () => {
    await fc.assert(
      fc.asyncProperty(
        formBody(OAUTH_KEYS, oauthValue()),
        contentType,
        authorization,
        async (body, type, auth) => {
          await send('/revoke', '/revoke', { method: 'POST', headers: headersOf(type, auth), body });
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('POST /register', async () => {
    const metadata = fc.dictionary(
      fc.oneof(
        fc.constantFrom(
          'client_name',
          'redirect_uris',
          'grant_types',
          'response_types',
          'token_endpoint_auth_method',
          'application_type',
          'scope',
          'client_uri',
          'logo_uri',
          'software_id',
        ),
        fc.string({ maxLength: 10 }),
      ),
      fc.oneof(
        fc.jsonValue({ maxDepth: 3 }),
        fc.array(
          fc.oneof(
            anyText,
            fc.webUrl(),
            fc.constantFrom('http://localhost/cb', 'myapp:/cb', 'javascript:alert(1)'),
          ),
        ),
      ),
      { maxKeys: 8 },
    );
    const body = fc.oneof(
      metadata.map((m) => JSON.stringify(m)),
      fc.jsonValue().map((v) => JSON.stringify(v)),
      fc.string({ unit: 'binary', maxLength: 200 }),
    );
    await fc.assert(
      fc.asyncProperty(
        body,
        fc.constantFrom('application/json', 'application/json; charset=utf-8', 'text/plain', ''),
        async (b, type) => {
          await send('/register', '/register', {
            method: 'POST',
            headers: headersOf(type, undefined),
            body: b,
          });
        },
      ),
      { numRuns: RUNS * 2 },
    );
  });

  it('GET /authorize and POST /authorize/decision (signed in and out)', async () => {
    await fc.assert(
      fc.asyncProperty(formOf(OAUTH_KEYS, oauthValue()), fc.boolean(), async (query, signedIn) => {
        const qs = new URLSearchParams(query).toString();
        const cookie: Record<string, string> = signedIn ? { cookie: user.cookie } : {};
        await send('/authorize', `/authorize?${qs}`, { headers: headersOf('', undefined, cookie) });
      }),
      { numRuns: RUNS },
    );
    await fc.assert(
      fc.asyncProperty(
        formBody(['csrf', 'request', 'workspace', 'decision'], oauthValue()),
        fc.boolean(),
        async (body, signedIn) => {
          const origin = new URL(server.url).origin;
          await send('/authorize/decision', '/authorize/decision', {
            method: 'POST',
            headers: headersOf('application/x-www-form-urlencoded', undefined, {
              origin,
              ...(signedIn ? { cookie: user.cookie } : {}),
            }),
            body,
          });
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('the forms: /sign-in, /sign-up, /account/credentials', async () => {
    // A signed-out browser's CSRF cookie and token, so some posts pass the CSRF check.
    const page = await fetch(`${server.url}/sign-in`);
    const cookie = page.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
    const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? '';
    const account = await fetch(`${server.url}/account/credentials`, { headers: { cookie: user.cookie } });
    const sessionCsrf = /name="csrf" value="([^"]+)"/.exec(await account.text())?.[1] ?? '';
    const value = fc.oneof(
      anyText,
      fc.emailAddress(),
      fc.constantFrom(
        'correct horse battery staple',
        user.workspaceId,
        'sandbox',
        'save',
        sandbox.token,
        '/account',
        '//evil.example',
      ),
    );
    const keys = [
      'email',
      'password',
      'next',
      'invite',
      'csrf',
      'workspace',
      'token',
      'upstream_user_id',
      'action',
    ];
    const origin = new URL(server.url).origin;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('/sign-in', '/sign-up', '/account/credentials'),
        formOf(keys, value),
        fc.record(
          { email: fc.emailAddress(), password: fc.string({ minLength: 1, maxLength: 40 }) },
          { requiredKeys: [] },
        ),
        fc.oneof({ arbitrary: fc.constant(true), weight: 3 }, { arbitrary: fc.constant(false), weight: 1 }),
        fc.oneof(
          { arbitrary: fc.constant(origin), weight: 4 },
          { arbitrary: fc.constantFrom('https://evil.example', ''), weight: 1 },
        ),
        async (path, form, plausible, withCsrf, originHeader) => {
          const signedIn = path === '/account/credentials';
          const fields: Record<string, string> = { ...form, ...plausible };
          if (withCsrf) fields.csrf = signedIn ? sessionCsrf : csrf;
          await send(path, path, {
            method: 'POST',
            headers: headersOf('application/x-www-form-urlencoded', undefined, {
              cookie: signedIn ? user.cookie : cookie,
              ...(originHeader ? { origin: originHeader } : {}),
            }),
            body: new URLSearchParams(fields).toString(),
          });
        },
      ),
      { numRuns: RUNS * 2 },
    );
  });

  it('POST /mcp JSON-RPC', async () => {
    const toolNames = fc.constantFrom(
      'submit_keyword_search',
      'get_keyword_search',
      'get_keyword_searches',
      'usage',
      'start_agent_run',
      'get_integration_setup',
      'no_such_tool',
    );
    const params = fc.oneof(
      fc.jsonValue({ maxDepth: 3 }),
      fc.record({
        name: fc.oneof(toolNames, anyText),
        arguments: fc.oneof(
          fc.jsonValue({ maxDepth: 3 }),
          fc.record(
            {
              query: anyText,
              search_id: fc.oneof(fc.integer(), anyText, fc.double()),
              platforms: fc.array(fc.oneof(anyText, fc.constantFrom('twitter', 'linkedin', 'reddit'))),
              max_post: fc.oneof(fc.integer(), fc.double()),
              start_date: anyText,
            },
            { requiredKeys: [] },
          ),
        ),
        _meta: fc.option(fc.jsonValue({ maxDepth: 2 }), { nil: undefined }),
      }),
    );
    const message = fc.record(
      {
        jsonrpc: fc.oneof(fc.constant('2.0'), fc.jsonValue({ maxDepth: 1 })),
        id: fc.oneof(fc.integer(), anyText, fc.constant(null), fc.jsonValue({ maxDepth: 1 })),
        method: fc.oneof(
          fc.constantFrom(
            'initialize',
            'tools/list',
            'tools/call',
            'ping',
            'notifications/initialized',
            'notifications/cancelled',
            'resources/list',
            'server/discover',
          ),
          anyText,
        ),
        params,
      },
      { requiredKeys: [] },
    );
    const wellFormed = fc.record({
      jsonrpc: fc.constant('2.0'),
      id: fc.nat(),
      method: fc.constantFrom('initialize', 'tools/list', 'tools/call', 'ping'),
      params,
    });
    const body = fc.oneof(
      { arbitrary: wellFormed.map((m) => JSON.stringify(m)), weight: 3 },
      message.map((m) => JSON.stringify(m)),
      fc.array(message, { maxLength: 4 }).map((m) => JSON.stringify(m)),
      fc.jsonValue().map((v) => JSON.stringify(v)),
      fc.string({ unit: 'binary', maxLength: 200 }),
    );
    const headers = fc.oneof(
      fc.constant({ accept: 'application/json, text/event-stream' }),
      fc.constant({ accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' }),
      fc.record(
        {
          'mcp-protocol-version': fc.oneof(
            fc.constantFrom('2026-07-28', '2025-06-18', '2025-11-25', '1999-01-01'),
            anyText,
          ),
          'mcp-method': fc.oneof(fc.constantFrom('tools/list', 'tools/call'), anyText),
          accept: fc.constantFrom(
            'application/json, text/event-stream',
            'application/json',
            'text/event-stream',
            '*/*',
          ),
          'mcp-session-id': anyText,
        },
        { requiredKeys: [] },
      ),
    );
    await fc.assert(
      fc.asyncProperty(
        body,
        headers,
        fc.oneof(
          { arbitrary: fc.constant('application/json'), weight: 4 },
          fc.constantFrom('text/plain', ''),
        ),
        fc.oneof({ arbitrary: fc.constant(true), weight: 4 }, { arbitrary: fc.constant(false), weight: 1 }),
        async (b, h, type, authed) => {
          const clean = Object.fromEntries(
            Object.entries(h).map(([k, v]) => [k, String(v).replace(/[^\t\x20-\x7e]/g, '')]),
          );
          await send('/mcp', '/mcp', {
            method: 'POST',
            headers: headersOf(type, authed ? `Bearer ${bearer}` : undefined, clean),
            body: b,
          });
        },
      ),
      { numRuns: RUNS * 3 },
    );
  });

  it('issued no token and is still healthy', async () => {
    expect(await count(server.sql, 'oauth_tokens')).toBe(tokensBefore);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    expect(server.logs.filter((l) => l.msg === 'unhandled error')).toEqual([]);
    // What the fuzzing saw, for the record (a property that only ever met 400 would be shallow).
    const summary = Object.fromEntries(
      [...statuses].map(([k, v]) => [k, [...new Set(v)].sort((a, b) => a - b).join(',')]),
    );
    expect(summary['/token']).toMatch(/400|401/);
    expect(summary['/mcp']).toMatch(/200/);
    expect(summary['/sign-in']).toMatch(/401/);
    console.log('statuses seen while fuzzing:', summary);
  });
});

describe('limits and timeouts', () => {
  it('refuses an oversized header with 431', async () => {
    const head = `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`;
    const { response } = await rawExchange(port, head, { giveUpMs: 5_000 });
    expect(response).toMatch(/^HTTP\/1\.1 431/);
  });

  it('refuses an oversized body with 413, declared or chunked', async () => {
    const big = 'a'.repeat(server.config.bodyLimitBytes + 10);
    for (const path of ['/token', '/mcp', '/register', '/sign-in']) {
      const declared = await rawExchange(
        port,
        `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nAuthorization: Bearer ${bearer}\r\nContent-Length: ${big.length}\r\n\r\n${big}`,
        { giveUpMs: 5_000 },
      );
      expect(declared.response, path).toMatch(/^HTTP\/1\.1 413/);
      const chunk = (s: string) => `${s.length.toString(16)}\r\n${s}\r\n`;
      const chunked = await rawExchange(
        port,
        `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nAuthorization: Bearer ${bearer}\r\nTransfer-Encoding: chunked\r\n\r\n${chunk(big.slice(0, 600_000))}${chunk(big.slice(600_000))}0\r\n\r\n`,
        { giveUpMs: 5_000 },
      );
      expect(chunked.response, path).toMatch(/^HTTP\/1\.1 413/);
    }
  });

  it('cuts off a client sending its headers a byte at a time (slowloris)', async () => {
    const { response, closedAfterMs, closedByServer } = await rawExchange(port, 'G', {
      drip: `ET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ${'b'.repeat(200)}`,
      dripMs: 50,
      giveUpMs: 8_000,
    });
    expect(closedByServer).toBe(true);
    expect(response).toMatch(/^HTTP\/1\.1 408/);
    expect(closedAfterMs).toBeLessThan(LIMITS.headersTimeoutMs + 1_000);
  });

  it('closes a connection that never sends anything', async () => {
    const { closedAfterMs, closedByServer } = await rawExchange(port, '', { giveUpMs: 8_000 });
    expect(closedByServer).toBe(true);
    expect(closedAfterMs).toBeLessThan(LIMITS.requestTimeoutMs + 1_000);
  });

  it('cuts off a body that never finishes, on every kind of route', async () => {
    for (const [path, type] of [
      ['/token', 'application/x-www-form-urlencoded'],
      ['/mcp', 'application/json'],
      ['/register', 'application/json'],
      ['/sign-up', 'application/x-www-form-urlencoded'],
    ] as const) {
      const { closedAfterMs, closedByServer } = await rawExchange(
        port,
        `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: ${type}\r\nAuthorization: Bearer ${bearer}\r\nContent-Length: 1000\r\n\r\n{"a":`,
        { drip: ' ', dripMs: 200, giveUpMs: 8_000 },
      );
      expect(closedByServer, path).toBe(true);
      expect(closedAfterMs, path).toBeLessThan(LIMITS.requestTimeoutMs + 1_000);
    }
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    // The client went away: an abort worth a line, not an error of ours.
    expect(server.logs.filter((l) => l.msg === 'unhandled error')).toEqual([]);
  });

  it('does not cut off a tool call whose answer takes longer than the request timeout', async () => {
    await fetch(`${sandbox.searchUrl}/__sandbox/faults`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ latency_ms: LIMITS.requestTimeoutMs + 500 }),
    });
    try {
      const started = Date.now();
      const res = await fetch(`${server.url}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${bearer}`,
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'usage', arguments: {} },
        }),
      });
      const text = await res.text();
      expect(res.status).toBe(200);
      expect(Date.now() - started).toBeGreaterThan(LIMITS.requestTimeoutMs);
      expect(text).toContain('"result"');
    } finally {
      await fetch(`${sandbox.searchUrl}/__sandbox/faults`, { method: 'DELETE' });
    }
  });
});
