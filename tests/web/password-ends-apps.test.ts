import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { createSession } from '../../src/accounts/sessions.js';
import { grantSubject } from '../../src/db/store/index.js';
import { heard } from '../helpers/bearer-fixture.js';
import { runCli } from '../helpers/cli.js';
import { FormClient, SESSION_COOKIE } from '../helpers/forms.js';
import { oauthFixture } from '../helpers/oauth-fixture.js';
import {
  grantForClient,
  mcpStatus,
  type SignedInUser,
  signedInUser,
  tokenRequest,
} from '../helpers/oauth-http.js';
import { TEST_SECRET_KEY } from '../helpers/temp.js';

/**
 * A new password, or signing out everywhere, ends what the old password may have let someone else
 * connect: every connected app's access and refresh tokens stop working at once (the server's own
 * cache of bearer answers included), unless the person or the operator says to keep the apps.
 */
const fx = oauthFixture({ client: true });
const OLD_PASSWORD = 'correct horse battery staple';
const NEW_PASSWORD = 'quartz lantern meadow fig';

/** A person with a connected app whose access token the server has already answered (cached). */
async function personWithApp() {
  const person = await signedInUser(fx.server);
  const app = await grantForClient(fx.server, person, fx.clientId);
  expect(await mcpStatus(fx.server, app.accessToken)).toBe(200);
  expect(await mcpStatus(fx.server, app.accessToken)).toBe(200);
  const grantId = await grantOf(person);
  return { person, app, grantId };
}

async function grantOf(person: SignedInUser): Promise<string> {
  const { oauthGrants } = fx.server.db.t;
  const [row] = await fx.server.db.orm
    .select({ id: oauthGrants.id })
    .from(oauthGrants)
    .where(eq(oauthGrants.userId, person.userId));
  return row?.id ?? '';
}

/** Whether the app still works: its access token at /mcp and its refresh token at /token. */
async function appWorks(app: { accessToken: string; refreshToken: string }) {
  const refresh = await tokenRequest(fx.server, {
    grant_type: 'refresh_token',
    refresh_token: app.refreshToken,
    client_id: fx.clientId,
  });
  return { mcp: await mcpStatus(fx.server, app.accessToken), refresh: refresh.status };
}

/** A browser signed in as `person` (their session cookie). */
function browserOf(person: SignedInUser): FormClient {
  const client = new FormClient(fx.server.url);
  client.cookies.set(SESSION_COOKIE, person.cookie.slice(person.cookie.indexOf('=') + 1));
  return client;
}

async function auditDetail(kind: string, userId: string) {
  const { auditEvents: a } = fx.server.db.t;
  const rows = await fx.server.db.orm.select().from(a).where(eq(a.kind, kind));
  const row = rows.find((r) => r.userId === userId);
  return row ? (JSON.parse(row.detail ?? '{}') as Record<string, unknown>) : null;
}

async function resetPassword(person: SignedInUser, ...flags: string[]) {
  const { databasePath, databaseUrl } = fx.server.config;
  const r = await runCli(
    ['user', 'reset-password', person.email, '--password-stdin', ...flags],
    {
      DATABASE_PATH: databasePath,
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
      SECRET_KEY: TEST_SECRET_KEY,
    },
    { stdin: NEW_PASSWORD },
  );
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return r.stdout;
}

describe('a new password cuts off the apps the old one connected', () => {
  it("a password reset ends the person's grants unless told to keep them", async () => {
    const { person, app, grantId } = await personWithApp();
    // The command line writes from another process: on PostgreSQL the server hears it by NOTIFY.
    const notified =
      fx.server.engine === 'postgres'
        ? heard(fx.server.db, (s) => s === grantSubject(grantId))
        : Promise.resolve();
    expect(await resetPassword(person)).toBe(
      `password reset for ${person.email}; ended 1 session (sign in again); disconnected 1 connected app\n`,
    );
    await notified;
    expect(await appWorks(app)).toEqual({ mcp: 401, refresh: 400 });
    expect(await auditDetail('password_reset', person.userId)).toEqual({
      by: 'cli',
      sessionsEnded: 1,
      appsDisconnected: 1,
      appsKept: false,
    });

    const kept = await personWithApp();
    expect(await resetPassword(kept.person, '--keep-apps')).toMatch(/; connected apps kept\n$/);
    expect(await appWorks(kept.app)).toEqual({ mcp: 200, refresh: 200 });
    expect(await auditDetail('password_reset', kept.person.userId)).toMatchObject({ appsKept: true });
  });

  it("a password change ends the person's grants unless told to keep them", async () => {
    const { person, app } = await personWithApp();
    const otherBrowser = await createSession(fx.server.db, person.userId, 'phone');
    const browser = browserOf(person);
    expect((await browser.get('/account/password')).status).toBe(200);
    // Keeping the apps is a choice the person makes: the box starts unticked.
    expect(browser.lastHtml).toMatch(/<input type="checkbox" name="keep_apps"(?![^>]*checked)/);
    const res = await browser.post('/account/password', {
      current_password: OLD_PASSWORD,
      new_password: NEW_PASSWORD,
    });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/account?done=password_changed');
    expect(await appWorks(app)).toEqual({ mcp: 401, refresh: 400 });
    // This browser stays signed in; the others are signed out.
    expect((await browser.get('/account?done=password_changed')).status).toBe(200);
    expect(browser.lastHtml).toContain('your connected apps were disconnected');
    const phone = await fetch(`${fx.server.url}/account`, {
      redirect: 'manual',
      headers: { cookie: `${SESSION_COOKIE}=${otherBrowser}` },
    });
    expect(phone.status).toBe(303);
    expect(await auditDetail('password_changed', person.userId)).toEqual({
      sessionsEnded: 1,
      appsDisconnected: 1,
      appsKept: false,
    });

    const kept = await personWithApp();
    const keeper = browserOf(kept.person);
    await keeper.get('/account/password');
    const keptRes = await keeper.post('/account/password', {
      current_password: OLD_PASSWORD,
      new_password: NEW_PASSWORD,
      keep_apps: 'on',
    });
    expect(keptRes.headers.get('location')).toBe('/account?done=password_changed_apps_kept');
    expect(await appWorks(kept.app)).toEqual({ mcp: 200, refresh: 200 });
  });

  it('a password change needs the current password, and a wrong one changes nothing', async () => {
    const { person, app } = await personWithApp();
    const browser = browserOf(person);
    await browser.get('/account/password');
    const wrong = await browser.post('/account/password', {
      current_password: 'not my password at all',
      new_password: NEW_PASSWORD,
    });
    expect(wrong.status).toBe(400);
    expect(browser.lastHtml).toContain('That is not your current password.');
    const weak = await browser.post('/account/password', {
      current_password: OLD_PASSWORD,
      new_password: 'short',
    });
    expect(weak.status).toBe(400);
    expect(await appWorks(app)).toEqual({ mcp: 200, refresh: 200 });
    const signIn = new FormClient(fx.server.url);
    expect((await signIn.signIn(person.email, OLD_PASSWORD)).status).toBe(303);
  });

  it('sign out everywhere ends browser sessions and connected apps', async () => {
    const { person, app } = await personWithApp();
    const browser = browserOf(person);
    await browser.get('/account');
    expect(browser.lastHtml).toContain('Sign out everywhere');
    const res = await browser.post('/sign-out-everywhere', {});
    expect(res.headers.get('location')).toBe('/sign-in?reason=signed_out_everywhere');
    expect(await appWorks(app)).toEqual({ mcp: 401, refresh: 400 });
    expect((await browser.get('/account')).status).toBe(303);
    expect(await auditDetail('signed_out_everywhere', person.userId)).toEqual({ sessions: 1, apps: 1 });
  });
});
