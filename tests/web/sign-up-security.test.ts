import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { first, scalar } from '../../src/db/store/index.js';
import type { SandboxServer } from '../../src/sandbox/server.js';
import { hashToken, newToken } from '../../src/security/tokens.js';
import { freshEmail, PASSWORD, signedIn, startFormSecurityServer } from '../helpers/form-security.js';
import { FormClient, SESSION_COOKIE } from '../helpers/forms.js';
import type { TestServer } from '../helpers/server.js';

/**
 * Browser forms under attack, sign-up side: the session cookie, field errors and escaping, racing
 * sign-ups, closed and invite-only sign-up, and both CSRF layers.
 */
let sandbox: SandboxServer;
let server: TestServer;
beforeAll(async () => {
  ({ sandbox, server } = await startFormSecurityServer());
});
afterAll(async () => {
  await server?.close();
  await sandbox?.close();
});

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

    const signed = await signedIn(server);
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
    const owner = await signedIn(server);
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
    const client = await signedIn(server);
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
