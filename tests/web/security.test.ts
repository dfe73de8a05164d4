import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { first, scalar } from '../../src/db/store/index.js';
import { type SandboxServer, startSandboxServer } from '../../src/sandbox/server.js';
import { hashToken, newToken } from '../../src/security/tokens.js';
import { safeNext } from '../../src/web/next.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { FormClient, SESSION_COOKIE } from './form-client.js';

let sandbox: SandboxServer;
let server: TestServer;
beforeAll(async () => {
  sandbox = await startSandboxServer({ port: 0, speed: 'instant' });
  server = await startTestServer({
    upstream: { searchUrl: sandbox.searchUrl, agentUrl: sandbox.agentUrl },
    // Each FormClient then stands for its own address (X-Forwarded-For), so per-IP limits are testable.
    env: { TRUST_PROXY: 'true' },
  });
});
afterAll(async () => {
  await server?.close();
  await sandbox?.close();
});

const PASSWORD = 'violet tractor umbrella';
let n = 0;
const freshEmail = () => `person${++n}-${Date.now()}@example.com`;

async function signedIn(email = freshEmail(), password = PASSWORD): Promise<FormClient> {
  const client = new FormClient(server.url);
  const res = await client.signUp(email, password);
  expect(res.status).toBe(303);
  return client;
}

describe('sign-up and session cookie', () => {
  it('creates an account, signs it in with a __Host- cookie, and lands on the account page', async () => {
    const client = new FormClient(server.url);
    await client.get('/sign-up');
    const res = await client.post('/sign-up', { email: '  Mixed.Case@Example.COM ', password: PASSWORD });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/account?welcome=1');
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith(`${SESSION_COOKIE}=`)) ?? '';
    expect(cookie).toMatch(/; HttpOnly/);
    expect(cookie).toMatch(/; Secure/);
    expect(cookie).toMatch(/; SameSite=Lax/);
    expect(cookie).toMatch(/; Path=\//);
    expect(cookie).not.toMatch(/Domain=/i);
    const account = await client.get('/account');
    expect(account.status).toBe(200);
    expect(account.headers.get('cache-control')).toBe('no-store');
    expect(client.lastHtml).toContain('mixed.case@example.com');
    expect(client.lastHtml).toContain('Personal');
  });

  it('re-renders the form with field errors for bad input, keeping the email but never the password', async () => {
    const client = new FormClient(server.url);
    await client.get('/sign-up');
    let res = await client.post('/sign-up', { email: 'not-an-email', password: 'short' });
    expect(res.status).toBe(400);
    expect(client.lastHtml).toContain('Enter an email address like name@example.com.');
    expect(client.lastHtml).toMatch(/id="email"[^>]*aria-invalid="true"[^>]*aria-describedby="email-error/);
    expect(client.lastHtml).toMatch(
      /id="password"[^>]*aria-invalid="true"[^>]*aria-describedby="password-error/,
    );
    expect(client.lastHtml).toContain('value="not-an-email"');
    expect(client.lastHtml).toContain('Use at least 12 characters');

    res = await client.post('/sign-up', { email: freshEmail(), password: 'password1234' });
    expect(res.status).toBe(400);
    expect(client.lastHtml).toContain('too common');

    res = await client.post('/sign-up', { email: `${'a'.repeat(10_000)}@example.com`, password: PASSWORD });
    expect(res.status).toBe(400);
    expect(client.lastHtml).toContain('at most 254 characters');
    expect(client.lastHtml.length).toBeLessThan(10_000);

    res = await client.post('/sign-up', { email: freshEmail(), password: 'x'.repeat(5_000) });
    expect(res.status).toBe(400);
    expect(client.lastHtml).toContain('at most 256 characters');
    expect(client.lastHtml).not.toContain('x'.repeat(100));
    expect(
      await first(
        server.db.orm.select().from(server.db.t.users).where(eq(server.db.t.users.email, 'not-an-email')),
      ),
    ).toBeUndefined();
  });

  it('escapes HTML and script typed into any field', async () => {
    const client = new FormClient(server.url);
    await client.get('/sign-up');
    const evil = '"><script>alert(1)</script>@x.com';
    await client.post('/sign-up', { email: evil, password: PASSWORD });
    expect(client.lastHtml).not.toContain('<script>alert(1)</script>');
    expect(client.lastHtml).toContain('&lt;script&gt;');

    const signed = await signedIn();
    await signed.get('/account/credentials');
    const res = await signed.post('/account/credentials', {
      workspace: /name="workspace" value="([^"]+)"/.exec(signed.lastHtml)?.[1] ?? '',
      token: '<b>bad token</b>',
      upstream_user_id: '<img src=x onerror=alert(1)>',
    });
    expect(res.status).toBe(400);
    expect(signed.lastHtml).not.toContain('<img src=x');
    expect(signed.lastHtml).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });

  it('makes exactly one account when sign-ups for one email race, with no 500', async () => {
    const email = freshEmail();
    const clients = await Promise.all(
      Array.from({ length: 5 }, async () => {
        const client = new FormClient(server.url);
        await client.get('/sign-up');
        return client;
      }),
    );
    const results = await Promise.all(
      clients.map((client, i) =>
        client.post('/sign-up', { email: i % 2 ? email.toUpperCase() : ` ${email}`, password: PASSWORD }),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 303)).toHaveLength(1);
    expect(statuses.every((s) => s === 303 || s === 409)).toBe(true);
    const rows = await server.db.orm
      .select()
      .from(server.db.t.users)
      .where(eq(server.db.t.users.email, email));
    expect(rows).toHaveLength(1);
    const memberships = await server.db.orm
      .select()
      .from(server.db.t.workspaceMembers)
      .innerJoin(
        server.db.t.workspaces,
        eq(server.db.t.workspaces.id, server.db.t.workspaceMembers.workspaceId),
      )
      .where(eq(server.db.t.workspaceMembers.userId, rows[0]?.id ?? ''));
    expect(memberships).toHaveLength(1);
    // Every workspace has an owner: no orphan from a losing racer.
    const orphans = await scalar(
      server.db,
      sql`SELECT count(*) FROM workspaces w WHERE NOT EXISTS (SELECT 1 FROM workspace_members m WHERE m.workspace_id = w.id)`,
    );
    expect(Number(orphans)).toBe(0);
  });

  it('refuses sign-up with a clear page when SIGNUP is closed or invite-only', async () => {
    server.config.signup = 'closed';
    try {
      const res = await fetch(`${server.url}/sign-up`);
      expect(res.status).toBe(403);
      expect(await res.text()).toContain('does not accept new accounts');
      server.config.signup = 'invite';
      const invite = await fetch(`${server.url}/sign-up`);
      expect(invite.status).toBe(403);
      expect(await invite.text()).toContain('need an invite link');
      const bad = await fetch(`${server.url}/sign-up?invite=sim_iv_nope`);
      expect(await bad.text()).toContain('not valid any more');
    } finally {
      server.config.signup = 'open';
    }
  });
});

describe('invite hook', () => {
  it('lets a valid invite link sign up in invite mode and joins its workspace', async () => {
    const owner = await signedIn();
    await owner.get('/account/credentials');
    const workspaceId = /name="workspace" value="([^"]+)"/.exec(owner.lastHtml)?.[1] ?? '';
    const token = newToken('invite');
    await server.db.orm.insert(server.db.t.invites).values({
      id: newToken('invite'),
      workspaceId,
      tokenHash: hashToken(token),
      role: 'member',
      maxUses: 1,
      expiresAt: Date.now() + 60_000,
      createdAt: Date.now(),
    });
    server.config.signup = 'invite';
    try {
      const guest = new FormClient(server.url);
      const form = await guest.get(`/sign-up?invite=${encodeURIComponent(token)}`);
      expect(form.status).toBe(200);
      expect(guest.lastHtml).toContain(`name="invite" value="${token}"`);
      const email = freshEmail();
      const res = await guest.post('/sign-up', { email, password: PASSWORD, invite: token });
      expect(res.status).toBe(303);
      const user = await first(
        server.db.orm.select().from(server.db.t.users).where(eq(server.db.t.users.email, email)),
      );
      const roles = await server.db.orm
        .select({
          workspaceId: server.db.t.workspaceMembers.workspaceId,
          role: server.db.t.workspaceMembers.role,
        })
        .from(server.db.t.workspaceMembers)
        .where(eq(server.db.t.workspaceMembers.userId, user?.id ?? ''));
      expect(roles).toContainEqual({ workspaceId, role: 'member' });
      expect(roles).toHaveLength(2);
      // Used up: the next person is refused with the clear page, and no account is made.
      const late = new FormClient(server.url);
      expect((await late.get(`/sign-up?invite=${encodeURIComponent(token)}`)).status).toBe(403);
      expect(late.lastHtml).toContain('not valid any more');
    } finally {
      server.config.signup = 'open';
    }
  });
});

describe('CSRF', () => {
  it('refuses a cross-site sign-up even with a valid token, and one without or with a wrong token', async () => {
    const email = freshEmail();
    const client = new FormClient(server.url);
    await client.get('/sign-up');
    const token = client.csrf();
    let res = await client.post(
      '/sign-up',
      { email, password: PASSWORD },
      { origin: 'https://evil.example' },
    );
    expect(res.status).toBe(403);
    expect(client.lastHtml).toContain('not sent from this site');
    res = await client.post('/sign-up', { email, password: PASSWORD }, { csrf: token, origin: null });
    expect(res.status).toBe(403);
    res = await client.post('/sign-up', { email, password: PASSWORD }, { csrf: null });
    expect(res.status).toBe(403);
    res = await client.post('/sign-up', { email, password: PASSWORD }, { csrf: `${token.slice(0, -2)}xx` });
    expect(res.status).toBe(403);
    // A token from another browser's cookie is no good either.
    const other = new FormClient(server.url);
    await other.get('/sign-up');
    res = await client.post('/sign-up', { email, password: PASSWORD }, { csrf: other.csrf() });
    expect(res.status).toBe(403);
    expect(
      await first(server.db.orm.select().from(server.db.t.users).where(eq(server.db.t.users.email, email))),
    ).toBeUndefined();
    // Same-site fetch metadata passes the origin layer on its own (browsers that omit Origin).
    res = await client.post(
      '/sign-up',
      { email, password: PASSWORD },
      { csrf: token, origin: null, headers: { 'sec-fetch-site': 'same-origin' } },
    );
    expect(res.status).toBe(303);
  });

  it('refuses forged state changes by a signed-in browser', async () => {
    const client = await signedIn();
    await client.get('/account/credentials');
    const workspace = /name="workspace" value="([^"]+)"/.exec(client.lastHtml)?.[1] ?? '';
    const token = client.csrf();
    let res = await client.post(
      '/account/credentials',
      { workspace, token: sandbox.token, upstream_user_id: 'me' },
      { csrf: token, origin: 'http://localhost.evil.example' },
    );
    expect(res.status).toBe(403);
    res = await client.post(
      '/account/credentials',
      { workspace, token: sandbox.token, upstream_user_id: 'me' },
      { csrf: 'forged' },
    );
    expect(res.status).toBe(403);
    expect(
      await first(
        server.db.orm
          .select()
          .from(server.db.t.upstreamCredentials)
          .where(eq(server.db.t.upstreamCredentials.workspaceId, workspace)),
      ),
    ).toBeUndefined();
    res = await client.post('/sign-out-everywhere', {}, { csrf: null });
    expect(res.status).toBe(403);
    res = await client.post('/sign-out', {}, { csrf: token, origin: 'https://evil.example' });
    expect(res.status).toBe(403);
    expect((await client.get('/account')).status).toBe(200);
  });
});

describe('sign-in', () => {
  it('gives the same answer for an unknown email and a wrong password', async () => {
    const email = freshEmail();
    await signedIn(email);
    const a = new FormClient(server.url);
    const wrong = await a.signIn(email, 'not the password at all');
    const wrongHtml = a.lastHtml;
    const unknown = await a.signIn(freshEmail(), 'not the password at all');
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    const message = (html: string) => /class="error field-error">([^<]+)</.exec(html)?.[1];
    expect(message(wrongHtml)).toBe('The email or password is not right. Check both and try again.');
    expect(message(a.lastHtml)).toBe(message(wrongHtml));
    expect(a.cookies.has(SESSION_COOKIE)).toBe(false);
  });

  it('limits sign-ups per address (the last entry of X-Forwarded-For behind a trusted proxy)', async () => {
    const ip = '192.0.2.1, 203.0.113.9';
    for (let i = 0; i < 20; i++) {
      const res = await new FormClient(server.url, ip).signUp(freshEmail(), PASSWORD);
      expect(res.status).toBe(303);
    }
    const blocked = new FormClient(server.url, '192.0.2.2, 203.0.113.9');
    const res = await blocked.signUp(freshEmail(), PASSWORD);
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    // The client-supplied part of the header is not what counts: another proxy-seen address is free.
    expect(
      (await new FormClient(server.url, '192.0.2.1, 203.0.113.10').signUp(freshEmail(), PASSWORD)).status,
    ).toBe(303);
  });

  it('throttles the 11th rapid wrong password for one account with 429 and Retry-After', async () => {
    const email = freshEmail();
    await signedIn(email);
    const client = new FormClient(server.url);
    await client.get('/sign-in');
    for (let i = 1; i <= 10; i++) {
      const res = await client.post('/sign-in', { email, password: `wrong password ${i}` });
      expect(res.status).toBe(401);
    }
    const eleventh = await client.post('/sign-in', { email, password: 'wrong password 11' });
    expect(eleventh.status).toBe(429);
    expect(Number(eleventh.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(eleventh.headers.get('retry-after'))).toBeLessThanOrEqual(15 * 60);
    expect(client.lastHtml).toContain('Too many attempts');
    // Even the right password waits: the throttle runs before the check.
    const right = await client.post('/sign-in', { email: email.toUpperCase(), password: PASSWORD });
    expect(right.status).toBe(429);
    // Another account from the same address is not locked by it.
    const other = freshEmail();
    await signedIn(other);
    expect((await client.post('/sign-in', { email: other, password: PASSWORD })).status).toBe(303);
  });

  it('honours a same-origin next and ignores anything else', async () => {
    const email = freshEmail();
    await signedIn(email);
    const client = new FormClient(server.url);
    let res = await client.signIn(email, PASSWORD, { next: '/account/credentials?workspace=x' });
    expect(res.headers.get('location')).toBe('/account/credentials?workspace=x');
    const again = new FormClient(server.url);
    res = await again.signIn(email, PASSWORD, { next: '//evil.example/x' });
    expect(res.headers.get('location')).toBe('/account');
    for (const bad of [
      '//evil.example',
      '/\\evil.example',
      'https://evil.example/',
      'javascript:alert(1)',
      '',
      'account',
      '/\t/evil.example',
    ]) {
      expect(safeNext(bad, server.url)).toBeNull();
    }
    expect(safeNext('/authorize?client_id=a&state=b', server.url)).toBe('/authorize?client_id=a&state=b');
  });

  it('sends a signed-out browser to sign-in with next, and says so when the session expired', async () => {
    const anonymous = await fetch(`${server.url}/account/credentials?workspace=abc`, { redirect: 'manual' });
    expect(anonymous.status).toBe(303);
    expect(anonymous.headers.get('location')).toBe(
      `/sign-in?next=${encodeURIComponent('/account/credentials?workspace=abc')}`,
    );

    const client = await signedIn();
    const user = (
      await server.db.orm.select().from(server.db.t.users).orderBy(server.db.t.users.createdAt)
    ).at(-1);
    await server.db.orm
      .update(server.db.t.sessions)
      .set({ expiresAt: Date.now() - 1 })
      .where(eq(server.db.t.sessions.userId, user?.id ?? ''));
    const res = await client.get('/account');
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/sign-in?next=%2Faccount&reason=expired');
    expect(client.cookies.has(SESSION_COOKIE)).toBe(false);
    await client.get('/sign-in?next=%2Faccount&reason=expired');
    expect(client.lastHtml).toContain('Your session has ended');
  });

  it('never promotes a session id planted before sign-in (fixation)', async () => {
    const email = freshEmail();
    await signedIn(email);
    const client = new FormClient(server.url);
    client.cookies.set(SESSION_COOKIE, 'sim_ss_planted-by-an-attacker');
    await client.signIn(email, PASSWORD);
    const issued = client.cookies.get(SESSION_COOKIE);
    expect(issued).toMatch(/^sim_ss_/);
    expect(issued).not.toBe('sim_ss_planted-by-an-attacker');
    // Signing in again replaces the id and ends the previous one.
    await client.get('/account');
    const first = client.cookies.get(SESSION_COOKIE) ?? '';
    client.cookies.delete(SESSION_COOKIE);
    client.cookies.set(SESSION_COOKIE, first);
    const res = await fetch(`${server.url}/sign-in`, {
      redirect: 'manual',
      headers: { cookie: client.cookieHeader() },
    });
    expect(res.status).toBe(303); // already signed in
  });
});

describe('sign-out', () => {
  it('ends the session server-side: the old cookie no longer works', async () => {
    const client = await signedIn();
    const old = client.cookieHeader();
    await client.get('/account');
    const res = await client.post('/sign-out', {});
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/sign-in?reason=signed_out');
    expect(client.cookies.has(SESSION_COOKIE)).toBe(false);
    const replay = await fetch(`${server.url}/account`, { redirect: 'manual', headers: { cookie: old } });
    expect(replay.status).toBe(303);
    expect(replay.headers.get('location')).toMatch(/^\/sign-in\?/);
  });

  it('"Sign out everywhere" ends every other session too', async () => {
    const email = freshEmail();
    const phone = await signedIn(email);
    const laptop = new FormClient(server.url);
    expect((await laptop.signIn(email, PASSWORD)).status).toBe(303);
    expect((await phone.get('/account')).status).toBe(200);
    expect((await laptop.get('/account')).status).toBe(200);
    const user = await first(
      server.db.orm.select().from(server.db.t.users).where(eq(server.db.t.users.email, email)),
    );
    expect(
      await server.db.orm
        .select()
        .from(server.db.t.sessions)
        .where(eq(server.db.t.sessions.userId, user?.id ?? '')),
    ).toHaveLength(2);

    const res = await laptop.post('/sign-out-everywhere', {});
    expect(res.headers.get('location')).toBe('/sign-in?reason=signed_out_everywhere');
    expect((await phone.get('/account')).status).toBe(303);
    expect(
      await server.db.orm
        .select()
        .from(server.db.t.sessions)
        .where(eq(server.db.t.sessions.userId, user?.id ?? '')),
    ).toHaveLength(0);
  });
});

describe('upstream credentials', () => {
  it('verifies with the upstream, stores encrypted, shows only the last 4, replaces and removes', async () => {
    const email = freshEmail();
    const client = await signedIn(email);
    await client.get('/account/credentials');
    const workspace = /name="workspace" value="([^"]+)"/.exec(client.lastHtml)?.[1] ?? '';
    expect(client.lastHtml).toContain('Use sandbox credentials'); // sandbox mode

    let res = await client.post('/account/credentials', {
      workspace,
      token: 'sim_unknown_token_zzzz',
      upstream_user_id: 'me',
    });
    expect(res.status).toBe(400);
    expect(client.lastHtml).toContain('The API rejected this token (HTTP 401)');
    expect(client.lastHtml).toMatch(/id="token"[^>]*aria-invalid="true"/);
    expect(client.lastHtml).toContain('value="me"');
    expect(
      await first(
        server.db.orm
          .select()
          .from(server.db.t.upstreamCredentials)
          .where(eq(server.db.t.upstreamCredentials.workspaceId, workspace)),
      ),
    ).toBeUndefined();

    res = await client.post('/account/credentials', {
      workspace,
      token: `  ${sandbox.token} `,
      upstream_user_id: 'analyst-7',
    });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`/account/credentials?workspace=${workspace}&done=saved`);
    await client.get(res.headers.get('location') ?? '');
    expect(client.lastHtml).toContain('Credentials verified and saved.');
    expect(client.lastHtml).toContain(`••••${sandbox.token.slice(-4)}`);
    expect(client.lastHtml).not.toContain(sandbox.token);
    expect(client.lastHtml).toContain('analyst-7');
    const row = await first(
      server.db.orm
        .select()
        .from(server.db.t.upstreamCredentials)
        .where(eq(server.db.t.upstreamCredentials.workspaceId, workspace)),
    );
    expect(row?.tokenLast4).toBe(sandbox.token.slice(-4));
    expect(row?.tokenCiphertext).not.toContain(sandbox.token);
    const user = await first(
      server.db.orm.select().from(server.db.t.users).where(eq(server.db.t.users.email, email)),
    );
    const member = await first(
      server.db.orm
        .select()
        .from(server.db.t.workspaceMembers)
        .where(eq(server.db.t.workspaceMembers.userId, user?.id ?? '')),
    );
    expect(member?.upstreamUserId).toBe('analyst-7');

    // Replace with a fresh sandbox token, honouring next.
    const created = (await (
      await fetch(`${sandbox.searchUrl}/__sandbox/credentials`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      })
    ).json()) as { token: string };
    res = await client.post('/account/credentials', {
      workspace,
      token: created.token,
      upstream_user_id: 'analyst-8',
      next: '/authorize?x=1',
    });
    expect(res.headers.get('location')).toBe('/authorize?x=1');
    expect(
      (
        await first(
          server.db.orm
            .select()
            .from(server.db.t.upstreamCredentials)
            .where(eq(server.db.t.upstreamCredentials.workspaceId, workspace)),
        )
      )?.tokenLast4,
    ).toBe(created.token.slice(-4));

    await client.get(`/account/credentials?workspace=${workspace}`);
    res = await client.post('/account/credentials/remove', { workspace });
    expect(res.headers.get('location')).toBe(`/account/credentials?workspace=${workspace}&done=removed`);
    expect(
      await first(
        server.db.orm
          .select()
          .from(server.db.t.upstreamCredentials)
          .where(eq(server.db.t.upstreamCredentials.workspaceId, workspace)),
      ),
    ).toBeUndefined();
  });

  it("refuses another person's workspace", async () => {
    const owner = await signedIn();
    await owner.get('/account/credentials');
    const workspace = /name="workspace" value="([^"]+)"/.exec(owner.lastHtml)?.[1] ?? '';
    const intruder = await signedIn();
    const page = await intruder.get(`/account/credentials?workspace=${workspace}`);
    expect(page.status).toBe(404);
    await intruder.get('/account/credentials');
    const res = await intruder.post('/account/credentials', {
      workspace,
      token: sandbox.token,
      upstream_user_id: 'x',
    });
    expect(res.status).toBe(404);
    expect(
      await first(
        server.db.orm
          .select()
          .from(server.db.t.upstreamCredentials)
          .where(eq(server.db.t.upstreamCredentials.workspaceId, workspace)),
      ),
    ).toBeUndefined();
  });

  it('leaves no password, session id or upstream token in the database files', async () => {
    const password = 'unique-plaintext-password-4711';
    const email = freshEmail();
    const client = await signedIn(email, password);
    const sessionId = client.cookies.get(SESSION_COOKIE) ?? '';
    await client.get('/account/credentials');
    const workspace = /name="workspace" value="([^"]+)"/.exec(client.lastHtml)?.[1] ?? '';
    const res = await client.post('/account/credentials', {
      workspace,
      token: sandbox.token,
      upstream_user_id: 'bytes-check',
    });
    expect(res.status).toBe(303);
    expect(sessionId).toMatch(/^sim_ss_/);

    const bytes = await storedBytes(server);
    // Sanity: the search can see what is there.
    expect(bytes.includes(Buffer.from(email))).toBe(true);
    const logs = JSON.stringify(server.logs);
    expect(logs).toContain('upstream credential linked');
    for (const secret of [password, sessionId, sessionId.slice(7), sandbox.token]) {
      expect(bytes.includes(Buffer.from(secret)), `found ${secret.slice(0, 6)}… in the database`).toBe(false);
      expect(logs.includes(secret), `found ${secret.slice(0, 6)}… in the logs`).toBe(false);
    }
    // The audit trail has the events, without secrets.
    const user = await first(
      server.db.orm.select().from(server.db.t.users).where(eq(server.db.t.users.email, email)),
    );
    const kinds = (
      await server.db.orm
        .select({ kind: server.db.t.auditEvents.kind })
        .from(server.db.t.auditEvents)
        .where(eq(server.db.t.auditEvents.userId, user?.id ?? ''))
    ).map((e) => e.kind);
    expect(kinds).toEqual(['account_created', 'credential_linked']);
  });
});

/**
 * What the database holds, as bytes to search: on SQLite the files themselves (database and WAL, so
 * nothing hides in a page the tables no longer point to), on PostgreSQL every row of every table.
 */
async function storedBytes(server: TestServer): Promise<Buffer> {
  if (server.engine === 'sqlite') {
    const dir = server.dataDir;
    const files = readdirSync(dir).filter((f) => f.startsWith('test.db'));
    expect(files).toContain('test.db-wal');
    return Buffer.concat(files.map((f) => readFileSync(join(dir, f))));
  }
  const rows = await Promise.all(
    Object.values(server.db.t).map((table) => server.db.orm.select().from(table)),
  );
  return Buffer.from(JSON.stringify(rows));
}
