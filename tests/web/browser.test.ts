import { eq } from 'drizzle-orm';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadUpstreamCredential } from '../../src/accounts/credentials.js';
import { getPersonalWorkspaceId } from '../../src/accounts/workspaces.js';
import { first } from '../../src/db/store/index.js';
import { type SandboxServer, startSandboxServer } from '../../src/sandbox/server.js';
import { SecretBox } from '../../src/security/secrets.js';
import { launchBrowser } from '../helpers/browser.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * A new user in a real browser (Debian Chromium) against the real app and the real sandbox over
 * HTTP, operating the pages by their labels (ARCHITECTURE.md, Rules the code keeps).
 */
let sandbox: SandboxServer;
let server: TestServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;

const EMAIL = 'new.person@example.com';
const PASSWORD = 'violet tractor umbrella';

beforeAll(async () => {
  sandbox = await startSandboxServer({ port: 0, speed: 'instant' });
  server = await startTestServer({ upstream: { searchUrl: sandbox.searchUrl, agentUrl: sandbox.agentUrl } });
  browser = await launchBrowser();
  context = await browser.newContext();
  page = await context.newPage();
});
afterAll(async () => {
  await context?.close();
  await browser?.close();
  await server?.close();
  await sandbox?.close();
});

async function userId(): Promise<string> {
  const row = await first(
    server.db.orm.select().from(server.db.t.users).where(eq(server.db.t.users.email, EMAIL)),
  );
  if (!row) throw new Error('no user');
  return row.id;
}

describe('a new user in the browser', () => {
  it('creates an account and is signed in with a __Host- cookie the browser keeps over http://localhost', async () => {
    await page.goto(`${server.url}/`);
    await page.getByRole('link', { name: 'Create an account' }).click();
    await expect.poll(() => page.url()).toBe(`${server.url}/sign-up`);
    await page.getByLabel('Email').fill('New.Person@Example.com');
    await page.getByLabel('Password').fill('short');
    await page.getByRole('button', { name: 'Create account' }).click();
    // The short password is refused, tied to its field; the email is kept, the password is not.
    await expect.poll(() => page.getByLabel('Password').getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByLabel('Password').getAttribute('aria-describedby')).toContain('password-error');
    expect(await page.locator('#password-error').textContent()).toContain('at least 12 characters');
    expect(await page.getByLabel('Email').inputValue()).toBe('new.person@example.com');
    expect(await page.getByLabel('Password').inputValue()).toBe('');

    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL(`${server.url}/account?welcome=1`);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Your account');
    expect(await page.locator('main').textContent()).toContain(EMAIL);

    const cookies = await context.cookies(server.url);
    const session = cookies.find((c) => c.name === '__Host-sim_session');
    expect(session).toMatchObject({ secure: true, httpOnly: true, sameSite: 'Lax', path: '/' });
    expect(session?.value).toMatch(/^sim_ss_/);
  });

  it('signs out, refuses a wrong password with the right message, and signs in again', async () => {
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.waitForURL(/\/sign-in\?reason=signed_out$/);
    expect(await page.getByRole('status').textContent()).toContain('You are signed out.');
    expect((await context.cookies(server.url)).some((c) => c.name === '__Host-sim_session')).toBe(false);

    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Password').fill('not my password at all');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect
      .poll(() => page.locator('#password-error').textContent())
      .toBe('The email or password is not right. Check both and try again.');
    expect(await page.getByLabel('Password').getAttribute('aria-invalid')).toBe('true');

    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${server.url}/account`);
  });

  it('shows a rejected upstream token clearly and stores nothing', async () => {
    await page.getByRole('link', { name: /link credentials/ }).click();
    await page.waitForURL(/\/account\/credentials\?workspace=/);
    await page.getByLabel('API token').fill('sim_this_token_does_not_exist');
    await page.getByLabel('User ID').fill('my-user');
    await page.getByRole('button', { name: 'Save credentials' }).click();
    await expect
      .poll(() => page.locator('#token-error').textContent())
      .toContain('The API rejected this token (HTTP 401)');
    expect(await page.getByLabel('API token').getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByLabel('User ID').inputValue()).toBe('my-user');
    expect(await page.locator('main').textContent()).toContain('No API credentials are linked');
    const workspaceId = (await getPersonalWorkspaceId(server.db, await userId())) ?? '';
    expect(
      await loadUpstreamCredential(
        server.db,
        new SecretBox(server.config.secretKeys),
        workspaceId,
        await userId(),
      ),
    ).toBeNull();
  });

  it('links sandbox credentials in one click and shows them masked', async () => {
    await page.getByRole('button', { name: 'Use sandbox credentials' }).click();
    await page.waitForURL(/done=saved/);
    expect(await page.getByRole('status').textContent()).toBe('Credentials verified and saved.');

    const workspaceId = (await getPersonalWorkspaceId(server.db, await userId())) ?? '';
    const linked = await loadUpstreamCredential(
      server.db,
      new SecretBox(server.config.secretKeys),
      workspaceId,
      await userId(),
    );
    expect(linked?.token).toEqual(expect.any(String));
    expect(linked?.userId).toMatch(/^u_[0-9a-f]{16}$/);
    const html = await page.content();
    expect(html).not.toContain(linked?.token ?? 'unreachable');
    expect(await page.locator('dl.facts').textContent()).toContain(`••••${linked?.token.slice(-4)}`);
    expect(await page.locator('dl.facts').textContent()).toContain(linked?.userId ?? 'unreachable');
    expect(await page.locator('dl.facts time').getAttribute('datetime')).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  it('replaces the credential with a typed token and removes it', async () => {
    await page.getByLabel('API token').fill(sandbox.token);
    await page.getByLabel('User ID').fill('analyst-42');
    await page.getByRole('button', { name: 'Save credentials' }).click();
    await page.waitForURL(/done=saved/);
    const facts = await page.locator('dl.facts').textContent();
    expect(facts).toContain(`••••${sandbox.token.slice(-4)}`);
    expect(facts).toContain('analyst-42');
    expect(await page.content()).not.toContain(sandbox.token);
    // The token field never comes back filled.
    expect(await page.getByLabel('API token').inputValue()).toBe('');

    await page.getByRole('button', { name: 'Remove credentials' }).click();
    await page.waitForURL(/done=removed/);
    expect(await page.locator('main').textContent()).toContain('No API credentials are linked');
  });

  it('returns to the page it was sent from after sign-in (next)', async () => {
    const other = await browser.newContext();
    try {
      const fresh = await other.newPage();
      await fresh.goto(`${server.url}/account/credentials`);
      await fresh.waitForURL(/\/sign-in\?next=%2Faccount%2Fcredentials$/);
      await fresh.getByLabel('Email').fill(EMAIL);
      await fresh.getByLabel('Password').fill(PASSWORD);
      await fresh.getByRole('button', { name: 'Sign in' }).click();
      await fresh.waitForURL(`${server.url}/account/credentials`);
      expect(await fresh.getByRole('heading', { level: 1 }).textContent()).toBe('API credentials');
    } finally {
      await other.close();
    }
  });

  it('is readable on a phone: no sideways scrolling, and no scripts on the page', async () => {
    const phone = await browser.newContext({ viewport: { width: 360, height: 740 }, isMobile: true });
    try {
      const p = await phone.newPage();
      for (const path of ['/sign-up', '/sign-in']) {
        await p.goto(`${server.url}${path}`);
        const overflow = Number(await p.evaluate('document.documentElement.scrollWidth - window.innerWidth'));
        expect(overflow, path).toBeLessThanOrEqual(0);
        expect(await p.locator('script').count()).toBe(0);
      }
    } finally {
      await phone.close();
    }
  });

  it('"Sign out everywhere" ends the session in this browser too', async () => {
    await page.goto(`${server.url}/account`);
    await page.getByRole('button', { name: 'Sign out everywhere' }).click();
    await page.waitForURL(/reason=signed_out_everywhere/);
    expect(await page.getByRole('status').textContent()).toContain('signed out on every device');
    await page.goto(`${server.url}/account`);
    await page.waitForURL(/\/sign-in\?next=%2Faccount/);
  });
});
