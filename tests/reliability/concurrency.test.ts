/**
 * Races the server must survive, at 50 requests and across two gateway processes sharing one
 * database (the real multi-process deployment, on the run's engine): refreshes with one refresh
 * token, exchanges of one code, sign-ups with one email. Exactly the promised outcomes, never a 500.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../src/accounts/users.js';
import type { OpenStore } from '../../src/db/store/index.js';
import { claimCode, createAuthorizationCode, findCode } from '../../src/oauth/codes.js';
import { SCOPES } from '../../src/oauth/scopes.js';
import { testEngine } from '../helpers/engine.js';
import { asTestServer, type Gateway, spawnGateway } from '../helpers/gateway.js';
import { mcpStatus, pkce } from '../helpers/oauth-http.js';
import { openRawSql, type RawSql } from '../helpers/raw-sql.js';
import type { TestServer } from '../helpers/server.js';
import { migratedTestStore, type TestStore } from '../helpers/stores.js';
import { tempDir } from '../helpers/temp.js';

const N = 50;
const PUBLIC_URL = 'http://localhost:8787';
const REDIRECT = 'http://localhost:3000/callback';

const dir = tempDir('sim-race-');
let store: TestStore;
let db: OpenStore;
let sql: RawSql;
let gateways: Gateway[] = [];
let views: TestServer[] = [];
let clientId: string;

beforeAll(async () => {
  store = await migratedTestStore(testEngine());
  db = store.store;
  sql = openRawSql(store.location);
  // The path is unused with DATABASE_URL, but the configuration wants one.
  const location = {
    ...store.location,
    databasePath: store.location.databasePath || join(dir.path, 'unused.db'),
  };
  gateways = await Promise.all(
    [0, 1].map(() => spawnGateway({ ...location, publicUrl: PUBLIC_URL, env: { TRUST_PROXY: 'true' } })),
  );
  views = gateways.map((g) => asTestServer(g.url, db, PUBLIC_URL, location, sql));
  const res = await fetch(`${gateways[0]?.url}/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'Race client',
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
    }),
  });
  expect(res.status).toBe(201);
  clientId = ((await res.json()) as { client_id: string }).client_id;
});

afterAll(async () => {
  for (const g of gateways) g.proc.kill('SIGKILL');
  await Promise.all(gateways.map((g) => g.proc.exit()));
  await sql?.close();
  await store?.cleanup();
  dir.remove();
});

/** The gateway for the i-th request: alternating, so every race spans both processes. */
const gw = (i: number) => gateways[i % 2] as Gateway;
const view = (i: number) => views[i % 2] as TestServer;

let userCounter = 0;
async function newCode(): Promise<{ code: string; verifier: string }> {
  const created = await createUser(db, {
    email: `race-${process.pid}-${++userCounter}@example.com`,
    password: 'correct horse battery staple',
  });
  if (!created.ok) throw new Error(created.reason);
  const { verifier, challenge } = pkce();
  const code = await createAuthorizationCode(db, {
    clientId,
    userId: created.user.id,
    workspaceId: created.personalWorkspaceId,
    redirectUri: REDIRECT,
    codeChallenge: challenge,
    scopes: SCOPES,
    resource: `${PUBLIC_URL}/mcp`,
  });
  return { code, verifier };
}

async function token(i: number, params: Record<string, string>) {
  const res = await fetch(`${gw(i).url}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ client_id: clientId, ...params }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, string> };
}

async function exchange(i: number, c: { code: string; verifier: string }) {
  return token(i, {
    grant_type: 'authorization_code',
    code: c.code,
    code_verifier: c.verifier,
    redirect_uri: REDIRECT,
    resource: `${PUBLIC_URL}/mcp`,
  });
}

describe(`${N} concurrent requests across two processes sharing one database`, () => {
  it('refreshes with one refresh token: exactly two pairs (rotation and the one grace-window extra), the rest reuse that revokes the family', async () => {
    const first = await exchange(0, await newCode());
    expect(first.status).toBe(200);
    const results = await Promise.all(
      Array.from({ length: N }, (_, i) =>
        token(i, { grant_type: 'refresh_token', refresh_token: first.body.refresh_token as string }),
      ),
    );
    const ok = results.filter((r) => r.status === 200);
    expect(ok).toHaveLength(2);
    expect(results.filter((r) => r.status === 400)).toHaveLength(N - 2);
    for (const r of results.filter((r) => r.status === 400)) expect(r.body.error).toBe('invalid_grant');
    expect(new Set(ok.map((r) => r.body.refresh_token)).size).toBe(2);
    // The reuse revoked the whole family, the two new pairs included, on either process.
    const mcp = await Promise.all(ok.map((r, i) => mcpStatus(view(i + 1), r.body.access_token as string)));
    expect(mcp).toEqual([401, 401]);
  });

  it('authorizations of one app by one person on both processes at once: one grant, a family per exchange', async () => {
    const person = await createUser(db, {
      email: `race-one-app-${process.pid}@example.com`,
      password: 'correct horse battery staple',
    });
    if (!person.ok) throw new Error(person.reason);
    const codes = await Promise.all(
      Array.from({ length: 10 }, async () => {
        const { verifier, challenge } = pkce();
        const code = await createAuthorizationCode(db, {
          clientId,
          userId: person.user.id,
          workspaceId: person.personalWorkspaceId,
          redirectUri: REDIRECT,
          codeChallenge: challenge,
          scopes: SCOPES,
          resource: `${PUBLIC_URL}/mcp`,
        });
        return { code, verifier };
      }),
    );
    const results = await Promise.all(codes.map((c, i) => exchange(i, c)));
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(200));
    const grants = await sql.all<{ id: string }>(
      'SELECT id FROM oauth_grants WHERE user_id = ? AND revoked_at IS NULL',
      person.user.id,
    );
    expect(grants).toHaveLength(1);
    const families = await sql.get<{ n: number | string }>(
      'SELECT count(DISTINCT family_id) AS n FROM oauth_tokens WHERE grant_id = ?',
      grants[0]?.id,
    );
    expect(Number(families?.n)).toBe(10);
  });

  it('exchanges of one code: exactly one 200, the rest invalid_grant, and the replay rule applied', async () => {
    const c = await newCode();
    const results = await Promise.all(Array.from({ length: N }, (_, i) => exchange(i, c)));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 400)).toHaveLength(N - 1);
    for (const r of results.filter((r) => r.status === 400)) expect(r.body.error).toBe('invalid_grant');
    const winner = results.find((r) => r.status === 200) as { body: Record<string, string> };
    // A loser that read the code after the winner had linked its grant revokes that grant (RFC 6749
    // §4.1.2); one that read it before only lost the claim. Whatever the timing: the winner's token
    // works exactly when its grant was not revoked, and a revocation names the replay.
    const row = await findCode(db, c.code);
    const grant = (await sql.get<{ revoked_at: number | null; revoked_reason: string | null }>(
      'SELECT revoked_at, revoked_reason FROM oauth_grants WHERE id = ?',
      row?.grantId,
    )) as { revoked_at: number | null; revoked_reason: string | null };
    const status = await mcpStatus(view(0), winner.body.access_token as string);
    if (grant.revoked_at === null) {
      expect(status).toBe(200);
    } else {
      expect(grant.revoked_reason).toBe('authorization_code_replay');
      expect(status).toBe(401);
    }
    // A replay after the race always revokes what the code issued.
    expect((await exchange(1, c)).status).toBe(400);
    expect(await mcpStatus(view(1), winner.body.access_token as string)).toBe(401);
    expect(await claimCode(db, row?.codeHash as string)).toBe(false);
  });

  it('sign-ups with one email: exactly one account, no 500', async () => {
    const email = `same-${process.pid}@example.com`;
    const origin = new URL(PUBLIC_URL).origin;
    const forms = await Promise.all(
      Array.from({ length: N }, async (_, i) => {
        const ip = `198.18.${i}.1`;
        const page = await fetch(`${gw(i).url}/sign-up`, { headers: { 'x-forwarded-for': ip } });
        const html = await page.text();
        return {
          ip,
          cookie: page.headers
            .getSetCookie()
            .map((c) => c.split(';')[0])
            .join('; '),
          csrf: /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? '',
        };
      }),
    );
    const statuses = await Promise.all(
      forms.map(async (f, i) => {
        const res = await fetch(`${gw(i).url}/sign-up`, {
          method: 'POST',
          redirect: 'manual',
          headers: {
            'content-type': 'application/x-www-form-urlencoded',
            cookie: f.cookie,
            origin,
            'x-forwarded-for': f.ip,
          },
          body: new URLSearchParams({ email, password: `correct horse battery ${i}`, csrf: f.csrf }),
        });
        await res.arrayBuffer();
        return res.status;
      }),
    );
    expect(statuses.filter((s) => s === 303)).toHaveLength(1);
    // The rest: the email is taken (409), or the per-email attempt limit (shared by both) refused it (429).
    expect(statuses.every((s) => s === 303 || s === 409 || s === 429)).toBe(true);
    const rows = await sql.get<{ n: number | string }>(
      'SELECT count(*) AS n FROM users WHERE email = ?',
      email,
    );
    expect(Number(rows?.n)).toBe(1);
  });

  it('logged no unhandled error in either process', () => {
    for (const g of gateways) {
      expect(g.proc.stdout()).not.toContain('"msg":"unhandled error"');
      expect(g.proc.stdout()).not.toContain('"msg":"request failed"');
    }
  });
});
