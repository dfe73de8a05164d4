import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SandboxServer, startSandboxServer } from '../../src/sandbox/server.js';
import { launchBrowser } from '../helpers/browser.js';
import { fullGrant, registerClient, type SignedInUser } from '../helpers/oauth-http.js';
import {
  compareScreenshot,
  horizontalOverflow,
  seriousAxeViolations,
  steadyText,
  tabTo,
} from '../helpers/page-checks.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * Every account-side page in real Chromium at a phone and a laptop size: nothing scrolls sideways,
 * axe-core finds no serious or critical problem, the main pages look like their reviewed screenshots,
 * and a keyboard alone gets a new person from sign-up to the consent page.
 */
let sandbox: SandboxServer;
let server: TestServer;
let browser: Browser;
let signedIn: BrowserContext;

const EMAIL = 'ada.lovelace@example.com';
const PASSWORD = 'violet tractor umbrella';
const SIZES = {
  phone: { width: 390, height: 844 },
  desktop: { width: 1280, height: 800 },
} as const;

beforeAll(async () => {
  sandbox = await startSandboxServer({ port: 0, speed: 'instant' });
  server = await startTestServer({ upstream: { searchUrl: sandbox.searchUrl, agentUrl: sandbox.agentUrl } });
  browser = await launchBrowser();
  // One person with linked sandbox credentials and one connected app, signed in in `signedIn`.
  signedIn = await browser.newContext({ colorScheme: 'light' });
  const page = await signedIn.newPage();
  await page.goto(`${server.url}/sign-up`);
  await page.getByLabel('Email').fill(EMAIL);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.waitForURL(/\/account\?welcome=1$/);
  await page.goto(`${server.url}/account/credentials`);
  await page.getByRole('button', { name: 'Use sandbox credentials' }).click();
  await page.waitForURL(/done=saved/);
  const session = (await signedIn.cookies(server.url)).find((c) => c.name === '__Host-sim_session');
  await fullGrant(server, { cookie: `__Host-sim_session=${session?.value}` } as SignedInUser, {
    scope: 'searches:read searches:write agent:read',
    metadata: { client_name: 'Claude' },
  });
  await page.close();
});
afterAll(async () => {
  await signedIn?.close();
  await browser?.close();
  await server?.close();
  await sandbox?.close();
});

const SIGNED_OUT_PAGES = ['/', '/sign-in', '/sign-up', '/connect', '/no-such-page'];
const SIGNED_IN_PAGES = [
  '/',
  '/connect',
  '/account',
  '/account/password',
  '/account/credentials',
  '/no-such-page',
];

async function openAt(
  context: BrowserContext | null,
  size: (typeof SIZES)[keyof typeof SIZES],
  path: string,
): Promise<{ page: Page; close(): Promise<void> }> {
  const own = context ? null : await browser.newContext({ viewport: size, colorScheme: 'light' });
  const page = await (own ?? signedIn).newPage();
  await page.setViewportSize(size);
  await page.goto(`${server.url}${path}`);
  return { page, close: async () => (own ? own.close() : page.close()) };
}

describe.each(Object.entries(SIZES))('at %s size', (_label, size) => {
  it.each([
    ...SIGNED_OUT_PAGES.map((path) => ['signed out', path] as const),
    ...SIGNED_IN_PAGES.map((path) => ['signed in', path] as const),
  ])('%s, %s: no sideways scrolling, no serious axe violation', async (who, path) => {
    const { page, close } = await openAt(who === 'signed in' ? signedIn : null, size, path);
    try {
      expect(await horizontalOverflow(page), `${path} scrolls sideways`).toBeLessThanOrEqual(0);
      expect(await seriousAxeViolations(page)).toEqual([]);
    } finally {
      await close();
    }
  });
});

describe.each(Object.entries(SIZES))('access tokens at %s size', (label, size) => {
  it('made by their labels: the page that shows the new token, then the account page listing it, neither scrolls sideways nor has a serious axe violation', async () => {
    const { page, close } = await openAt(signedIn, size, '/account');
    try {
      await page.getByText('New access token').click();
      await page.getByLabel('Token name').fill(`${label} job`);
      await page.getByLabel('Workspace', { exact: true }).selectOption({ label: 'Personal' });
      await page.getByLabel('Expires after (days)').fill('7');
      await page
        .getByLabel('Read your keyword, user and expert searches, their posts and topic trees')
        .check();
      await page.getByRole('button', { name: 'Create access token' }).click();
      await page.waitForURL(/\/account\/tokens$/);
      expect(await page.locator('#new-token').textContent()).toMatch(/^sim_pat_/);
      expect(await horizontalOverflow(page), 'the new token page scrolls sideways').toBeLessThanOrEqual(0);
      expect(await seriousAxeViolations(page)).toEqual([]);
      await page.goto(`${server.url}/account`);
      await expect.poll(() => page.getByRole('button', { name: `Revoke ${label} job` }).count()).toBe(1);
      expect(await horizontalOverflow(page), 'the account page scrolls sideways').toBeLessThanOrEqual(0);
      expect(await seriousAxeViolations(page)).toEqual([]);
      await page.getByRole('button', { name: `Revoke ${label} job` }).click();
      await page.waitForURL(/done=token_revoked/);
      expect(await page.getByRole('button', { name: `Revoke ${label} job` }).count()).toBe(0);
    } finally {
      await close();
    }
  });
});

describe('reviewed screenshots', () => {
  const MAIN_PAGES = [
    ['home', '/'],
    ['connect', '/connect'],
    ['account', '/account'],
    ['credentials', '/account/credentials'],
  ] as const;
  it.each(
    Object.entries(SIZES).flatMap(([label, size]) =>
      MAIN_PAGES.map(([name, path]) => [`${name}-${label}`, path, size] as const),
    ),
  )('%s looks as reviewed', async (name, path, size) => {
    const { page, close } = await openAt(signedIn, size, path);
    try {
      await steadyText(page, server.url);
      expect(await compareScreenshot(page, name)).toBeNull();
    } finally {
      await close();
    }
  });

  it.each(Object.entries(SIZES))('sign-in-%s looks as reviewed', async (label, size) => {
    const { page, close } = await openAt(null, size, '/sign-in');
    try {
      await steadyText(page, server.url);
      expect(await compareScreenshot(page, `sign-in-${label}`)).toBeNull();
    } finally {
      await close();
    }
  });
});

describe('copy buttons', () => {
  it('copy the MCP URL to the clipboard and say so', async () => {
    await signedIn.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
    const page = await signedIn.newPage();
    try {
      await page.goto(`${server.url}/connect`);
      await page.getByRole('button', { name: 'Copy the MCP server URL' }).click();
      await expect.poll(() => page.locator('.copy-line .copy-status').textContent()).toBe('Copied.');
      expect(await page.evaluate('navigator.clipboard.readText()')).toBe(`${server.url}/mcp`);
    } finally {
      await page.close();
    }
  });
});

describe('keyboard only', () => {
  it('gets a new person from an app’s sign-in through sign-up and credentials to the consent page', async () => {
    const client = await registerClient(server, { client_name: 'Keyboard App' });
    const context = await browser.newContext({ viewport: SIZES.phone, colorScheme: 'light' });
    const page = await context.newPage();
    try {
      const authorize = new URL(`${server.url}/authorize`);
      for (const [k, v] of Object.entries({
        response_type: 'code',
        client_id: client.client_id,
        redirect_uri: 'http://localhost:3000/callback',
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: 'S256',
        state: 'kb',
        resource: server.config.resourceUrl,
      }))
        authorize.searchParams.set(k, v);
      await page.goto(authorize.href);
      await page.waitForURL(/\/sign-in\?next=/);
      expect(await page.locator('main').textContent()).toContain('Keyboard App is asking to connect');

      await tabTo(page, 'Create an account');
      await page.keyboard.press('Enter');
      await page.waitForURL(/\/sign-up\?next=/);
      // The email field has focus on arrival.
      await page.keyboard.type('keyboard.person@example.com');
      await page.keyboard.press('Tab');
      await page.keyboard.type(PASSWORD);
      await page.keyboard.press('Enter');

      await page.waitForURL(/\/account\/credentials\?next=/);
      expect(await page.locator('main').textContent()).toContain('Keyboard App is waiting to connect');
      await tabTo(page, 'Use sandbox credentials');
      await page.keyboard.press('Enter');

      await page.waitForURL(/\/authorize\?/);
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toContain('Keyboard App');
      const consentProblems = await seriousAxeViolations(page);
      await tabTo(page, 'Allow');
      // The app's callback: nothing listens there, the browser only has to be sent.
      const backToApp = page.waitForRequest(/^http:\/\/localhost:3000\/callback\?code=/);
      await page.keyboard.press('Enter');
      await backToApp;
      // The consent page's markup is not this suite's to change: reported here, asserted last.
      expect(consentProblems).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
