import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { first } from '../../src/db/store/index.js';
import type { SandboxServer } from '../../src/sandbox/server.js';
import { safeNext } from '../../src/web/next.js';
import { freshEmail, PASSWORD, signedIn, startFormSecurityServer } from '../helpers/form-security.js';
import { FormClient, SESSION_COOKIE } from '../helpers/forms.js';
import type { TestServer } from '../helpers/server.js';

/**
 * Browser forms under attack, session side: sign-in answers and limits, next links, expired sessions,
 * session fixation, and signing out (here and everywhere).
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

describe('sign-in', () => {
  it('gives the same answer for an unknown email and a wrong password', async () => {
    const email = freshEmail();
    await signedIn(server, email);
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
    await signedIn(server, email);
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
    await signedIn(server, other);
    expect((await client.post('/sign-in', { email: other, password: PASSWORD })).status).toBe(303);
  });

  it('honours a same-origin next and ignores anything else', async () => {
    const email = freshEmail();
    await signedIn(server, email);
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

  it('sends a signed-in visitor of sign-in or sign-up home, never to a next that normalises to another host', async () => {
    const client = await signedIn(server);
    for (const page of ['/sign-in', '/sign-up']) {
      for (const next of ['/.//evil.example', '/..//evil.example/x', '/%2e%2e//evil.example']) {
        const res = await client.get(`${page}?next=${encodeURIComponent(next)}`);
        expect(res.status).toBe(303);
        expect(res.headers.get('location')).toBe('/account');
      }
      expect(
        (await client.get(`${page}?next=${encodeURIComponent('/account/apps')}`)).headers.get('location'),
      ).toBe('/account/apps');
    }
  });

  it('sends a signed-out browser to sign-in with next, and says so when the session expired', async () => {
    const anonymous = await fetch(`${server.url}/account/credentials?workspace=abc`, { redirect: 'manual' });
    expect(anonymous.status).toBe(303);
    expect(anonymous.headers.get('location')).toBe(
      `/sign-in?next=${encodeURIComponent('/account/credentials?workspace=abc')}`,
    );

    const client = await signedIn(server);
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
    await signedIn(server, email);
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
    const client = await signedIn(server);
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
    const phone = await signedIn(server, email);
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
