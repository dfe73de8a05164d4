import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  authorizeCode,
  pkce,
  registerClient,
  type SignedInUser,
  signedInUser,
  tokenRequest,
} from '../helpers/oauth-http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let user: SignedInUser;
const secrets: Record<string, string> = {};
let clientId = '';

const UPSTREAM_TOKEN = `upstream-secret-${process.pid}-${Date.now()}-zq9`;

beforeAll(async () => {
  server = await startTestServer();
  user = await signedInUser(server, { upstreamToken: UPSTREAM_TOKEN });
  secrets['session id'] = decodeURIComponent(user.cookie.slice(user.cookie.indexOf('=') + 1));
  const client = await registerClient(server, { token_endpoint_auth_method: 'client_secret_post' });
  clientId = client.client_id;
  secrets['client secret'] = client.client_secret as string;
  const p = pkce();
  const { code } = await authorizeCode(server, user, { clientId, challenge: p.challenge });
  secrets['authorization code'] = code;
  const auth = { client_id: clientId, client_secret: secrets['client secret'] };
  const tokens = await tokenRequest(server, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: 'http://localhost:3000/callback',
    code_verifier: p.verifier,
    ...auth,
  });
  secrets['access token'] = tokens.body.access_token as string;
  secrets['refresh token'] = tokens.body.refresh_token as string;
  const refreshed = await tokenRequest(server, {
    grant_type: 'refresh_token',
    refresh_token: secrets['refresh token'],
    ...auth,
  });
  secrets['rotated access token'] = refreshed.body.access_token as string;
  secrets['rotated refresh token'] = refreshed.body.refresh_token as string;
  secrets['PKCE code_verifier'] = p.verifier;
  secrets['upstream API token'] = UPSTREAM_TOKEN;
  for (const [what, value] of Object.entries(secrets)) {
    if (typeof value !== 'string' || value.length < 20) throw new Error(`setup did not produce the ${what}`);
  }
});
afterAll(async () => {
  await server?.close();
});

/**
 * Everything the database holds, as bytes: on SQLite the file and its -wal / -shm companions (free
 * pages included); on PostgreSQL every row of every table, as text.
 */
async function databaseBytes(): Promise<Buffer> {
  if (server.engine === 'postgres') {
    const tables = await server.sql.all<{ name: string }>(
      "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public'",
    );
    expect(tables.length).toBeGreaterThan(10);
    const parts: string[] = [];
    for (const { name } of tables)
      parts.push(JSON.stringify(await server.sql.all(`SELECT * FROM "${name}"`)));
    return Buffer.from(parts.join('\n'));
  }
  const base = server.config.databasePath.split('/').pop() as string;
  const dir = server.config.databasePath.slice(0, -base.length);
  const files = readdirSync(dir).filter((f) => f.startsWith(base));
  expect(files).toContain(base);
  return Buffer.concat(files.map((f) => readFileSync(join(dir, f))));
}

describe('secrets at rest (RFC 6819 §5.1.4.1.3, RFC 9700 §4.14)', () => {
  it('RFC 6819 §5.1.4.1.3: the search finds values that are stored in plain text (positive control)', async () => {
    const bytes = await databaseBytes();
    expect(bytes.includes(Buffer.from(clientId))).toBe(true);
    expect(bytes.includes(Buffer.from(user.email))).toBe(true);
  });

  it('RFC 6819 §5.1.4.1.3: no token, code, client secret, session id or upstream token is in the database in plain text', async () => {
    const bytes = await databaseBytes();
    const found = Object.entries(secrets)
      .filter(([, value]) => bytes.includes(Buffer.from(value)))
      .map(([what]) => what);
    expect(found).toEqual([]);
  });

  it('RFC 6819 §5.1.4.1.3: not even the random part without its prefix is stored', async () => {
    const bytes = await databaseBytes();
    for (const [what, value] of Object.entries(secrets)) {
      const random = value.replace(/^sim_[a-z]{2}_/, '');
      expect(bytes.includes(Buffer.from(random)), what).toBe(false);
    }
  });
});
