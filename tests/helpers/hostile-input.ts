import fc from 'fast-check';
import { afterAll, beforeAll, expect } from 'vitest';
import { type SandboxServer, startSandboxServer } from '../../src/sandbox/server.js';
import { TOKEN_PREFIXES } from '../../src/security/tokens.js';
import { anyText } from './fuzz-arbitraries.js';
import { count, startServer } from './gateway.js';
import { issueTestToken } from './grants.js';
import { registerClient, type SignedInUser, signedInUser } from './oauth-http.js';
import type { TestServer } from './server.js';

/** Socket limits short enough that the slow-request tests finish in seconds. */
export const LIMITS = {
  headersTimeoutMs: 600,
  requestTimeoutMs: 1_200,
  keepAliveTimeoutMs: 500,
  checkIntervalMs: 100,
};
export const RUNS = Number(process.env.FUZZ_RUNS ?? 60);

/**
 * The hostile-input tests' one set-up (tests/reliability/fuzz-*.test.ts, socket-limits.test.ts): a
 * sandbox, a server with short socket LIMITS that trusts X-Forwarded-For, a registered client, a
 * signed-in person, a bearer token, and the count of tokens before any fuzzing. Registers the file's
 * beforeAll and afterAll; read the fields inside tests. `send` records every status it sees and
 * throws on a 5xx; `expectNoTokenIssuedAndHealthy` is the closing check of a fuzzing file.
 */
export function hostileInput() {
  let sandbox: SandboxServer | undefined;
  let server: TestServer | undefined;
  let clientId: string | undefined;
  let user: SignedInUser | undefined;
  let bearer: string | undefined;
  let tokensBefore = 0;
  const statuses = new Map<string, number[]>();

  beforeAll(async () => {
    sandbox = await startSandboxServer({ port: 0, host: '127.0.0.1', speed: 'instant' });
    server = await startServer({
      upstream: { searchUrl: sandbox.searchUrl, agentUrl: sandbox.agentUrl },
      env: { TRUST_PROXY: 'true' },
      limits: LIMITS,
      mcpOptions: {
        searchMaxWaitMs: 2_000,
        runMaxWaitMs: 2_000,
        pollInitialMs: 20,
        pollMaxMs: 100,
        pollsPerSecond: 2_500,
      },
    });
    clientId = (await registerClient(server, {}, { 'x-forwarded-for': '198.18.0.1' })).client_id;
    user = await signedInUser(server, { upstreamToken: sandbox.token });
    bearer = (await issueTestToken(server, { upstreamToken: sandbox.token })).accessToken;
    tokensBefore = await count(server.sql, 'oauth_tokens');
  });

  afterAll(async () => {
    await server?.close();
    await sandbox?.close();
  });

  const ready = <T>(value: T | undefined, name: string): T => {
    if (value === undefined) throw new Error(`hostileInput: ${name} is read before beforeAll ran`);
    return value;
  };

  let ipCounter = 0;
  /** A new client address per request (TRUST_PROXY=true), so rate limits do not hide deeper paths. */
  const freshIp = () => `198.19.${Math.floor(++ipCounter / 250) % 250}.${(ipCounter % 250) + 1}`;

  const fx = {
    get sandbox() {
      return ready(sandbox, 'sandbox');
    },
    get server() {
      return ready(server, 'server');
    },
    get port() {
      return Number(new URL(fx.server.url).port);
    },
    get clientId() {
      return ready(clientId, 'clientId');
    },
    get user() {
      return ready(user, 'user');
    },
    get bearer() {
      return ready(bearer, 'bearer');
    },

    async send(label: string, path: string, init: RequestInit): Promise<number> {
      const res = await fetch(`${fx.server.url}${path}`, { redirect: 'manual', ...init });
      await res.arrayBuffer();
      const seen = statuses.get(label) ?? [];
      seen.push(res.status);
      statuses.set(label, seen);
      if (res.status >= 500) throw new Error(`${label}: ${res.status} for ${path}`);
      return res.status;
    },

    headersOf(type: string, auth: string | undefined, extra: Record<string, string> = {}) {
      const h: Record<string, string> = { 'x-forwarded-for': freshIp(), ...extra };
      if (type) h['content-type'] = type;
      if (auth) h.authorization = auth.replace(/[^\t\x20-\x7e]/g, '');
      return h;
    },

    /** Form values a little closer to real ones, so fuzzing reaches past the first checks. */
    oauthValue() {
      return fc.oneof(
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
        fc.constant(fx.clientId),
        fc.constant(fx.server.config.resourceUrl),
        fc.string({ minLength: 43, maxLength: 64 }).map((s) => `${TOKEN_PREFIXES.refresh}${s}`),
        fc.string({ minLength: 43, maxLength: 64 }).map((s) => `${TOKEN_PREFIXES.code}${s}`),
      );
    },

    /**
     * After the file's fuzzing: no token was issued, the server answers /healthz and logged no
     * unhandled error, and each label saw the statuses given (a property that only ever met 400
     * would be shallow).
     */
    async expectNoTokenIssuedAndHealthy(expected: Record<string, RegExp>) {
      expect(await count(fx.server.sql, 'oauth_tokens')).toBe(tokensBefore);
      expect((await fetch(`${fx.server.url}/healthz`)).status).toBe(200);
      expect(fx.server.logs.filter((l) => l.msg === 'unhandled error')).toEqual([]);
      const summary = Object.fromEntries(
        [...statuses].map(([k, v]) => [k, [...new Set(v)].sort((a, b) => a - b).join(',')]),
      );
      for (const [label, pattern] of Object.entries(expected)) expect(summary[label], label).toMatch(pattern);
      console.log('statuses seen while fuzzing:', summary);
    },
  };
  return fx;
}
