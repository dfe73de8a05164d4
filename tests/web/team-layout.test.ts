import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SandboxServer, startSandboxServer } from '../../src/sandbox/server.js';
import { launchBrowser } from '../helpers/browser.js';
import {
  compareScreenshot,
  horizontalOverflow,
  SCREENSHOT_DIR,
  seriousAxeViolations,
  steadyText,
} from '../helpers/page-checks.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { buildTeamScene, SCENE_PASSWORD, type TeamScene } from '../helpers/team-scene.js';

/**
 * Every team page in real Chromium at a phone and a laptop size: nothing scrolls
 * sideways, axe-core finds no serious or critical problem, and the team, audit and usage pages look
 * like their reviewed screenshots.
 */
let sandbox: SandboxServer;
let server: TestServer;
let browser: Browser;
let scene: TeamScene;
const contexts: Record<'owner' | 'member' | 'nobody', BrowserContext | null> = {
  owner: null,
  member: null,
  nobody: null,
};

const SIZES = {
  phone: { width: 390, height: 844 },
  desktop: { width: 1280, height: 800 },
} as const;

async function signedInContext(email: string): Promise<BrowserContext> {
  const context = await browser.newContext({ colorScheme: 'light', timezoneId: 'UTC' });
  const page = await context.newPage();
  await page.goto(`${server.url}/sign-in`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(SCENE_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(/\/account/);
  await page.close();
  return context;
}

beforeAll(async () => {
  sandbox = await startSandboxServer({ port: 0, speed: 'instant' });
  server = await startTestServer({ upstream: { searchUrl: sandbox.searchUrl, agentUrl: sandbox.agentUrl } });
  scene = await buildTeamScene(server, sandbox);
  browser = await launchBrowser();
  contexts.owner = await signedInContext(scene.owner.email);
  contexts.member = await signedInContext(scene.mia.email);
  contexts.nobody = await browser.newContext({ colorScheme: 'light', timezoneId: 'UTC' });
});
afterAll(async () => {
  for (const context of Object.values(contexts)) await context?.close();
  await browser?.close();
  await server?.close();
  await sandbox?.close();
});

/** The pages, as [who, path]; paths name the scene's ids once it is built. */
const PAGES: Array<[keyof typeof contexts, string, (s: TeamScene) => string]> = [
  ['owner', 'team page', (s) => `/workspaces/${s.teamId}`],
  ['member', 'team page as a member', (s) => `/workspaces/${s.teamId}`],
  ['owner', 'member settings', (s) => `/workspaces/${s.teamId}/members/${s.mia.id}`],
  ['owner', 'connected apps of the team', (s) => `/workspaces/${s.teamId}/apps`],
  ['owner', 'audit trail', (s) => `/workspaces/${s.teamId}/audit`],
  ['owner', 'usage', (s) => `/workspaces/${s.teamId}/usage`],
  ['owner', 'usage over 90 days', (s) => `/workspaces/${s.teamId}/usage?days=90`],
  ['member', 'my connected apps', () => '/account/apps'],
  ['owner', 'new team', () => '/workspaces/new'],
  ['owner', 'personal workspace', (s) => `/workspaces/${s.personalId}`],
  ['owner', 'connect page after creating a team', (s) => `/connect?workspace=${s.teamId}&done=team_created`],
  ['nobody', 'invitation, signed out', (s) => `/invite?token=${s.inviteToken}`],
  ['member', 'invitation, already a member', (s) => `/invite?token=${s.inviteToken}`],
];

async function open(
  who: keyof typeof contexts,
  size: { width: number; height: number },
  path: string,
): Promise<Page> {
  const context = contexts[who];
  if (!context) throw new Error(`no ${who} context`);
  const page = await context.newPage();
  await page.setViewportSize(size);
  const res = await page.goto(`${server.url}${path}`);
  expect(res?.status(), path).toBeLessThan(400);
  return page;
}

// Between the two: tables are still tables at 820 px (cards below 800), with long emails in them. The
// desktop page is narrowed to it after its checks, so the tablet's width costs no page load of its own.
const TABLET = { width: 820, height: 1180 };

describe.each(Object.entries(SIZES))('team pages at %s size', (label, size) => {
  it.each(PAGES)('%s, %s: no sideways scrolling, no serious axe violation', async (who, _name, path) => {
    const page = await open(who, size, path(scene));
    try {
      expect(await horizontalOverflow(page), `${path(scene)} scrolls sideways`).toBeLessThanOrEqual(0);
      expect(await seriousAxeViolations(page)).toEqual([]);
      if (label !== 'desktop') return;
      await page.setViewportSize(TABLET);
      expect(await horizontalOverflow(page), `${path(scene)} scrolls sideways at 820 px`).toBeLessThanOrEqual(
        0,
      );
    } finally {
      await page.close();
    }
  });
});

describe('reviewed screenshots of the team pages', () => {
  // The audit trail is 50 repeated rows: its first screenful is compared.
  const SHOTS: Array<[string, (s: TeamScene) => string]> = [
    ['team', (s) => `/workspaces/${s.teamId}`],
    ['audit', (s) => `/workspaces/${s.teamId}/audit`],
    ['usage', (s) => `/workspaces/${s.teamId}/usage`],
  ];
  it.each(
    Object.entries(SIZES).flatMap(([label, size]) =>
      SHOTS.map(([name, path]) => [`${name}-${label}`, path, size] as const),
    ),
  )('%s looks as reviewed', async (name, path, size) => {
    const page = await open('owner', size, path(scene));
    try {
      await steadyText(page, server.url);
      expect(
        await compareScreenshot(page, name, SCREENSHOT_DIR, { fullPage: !name.startsWith('audit') }),
      ).toBeNull();
    } finally {
      await page.close();
    }
  });
});

// Last: these add an invite link to the scene, which the screenshots above must not show.
describe('on the team pages', () => {
  it('times show in the reader’s own time zone, with its offset', async () => {
    const context = await browser.newContext({ timezoneId: 'Asia/Kolkata' });
    const page = await context.newPage();
    try {
      await page.goto(`${server.url}/sign-in`);
      await page.getByLabel('Email').fill(scene.owner.email);
      await page.getByLabel('Password').fill(SCENE_PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(/\/account/);
      await page.goto(`${server.url}/workspaces/${scene.teamId}/audit`);
      const first = page.locator('main time').first();
      const iso = (await first.getAttribute('datetime')) as string;
      // UTC+5:30: the same instant, written as the reader's clock shows it.
      const local = new Date(Date.parse(iso) + 330 * 60_000).toISOString().slice(0, 16).replace('T', ' ');
      expect(await first.textContent()).toBe(`${local} UTC+5:30`);
    } finally {
      await context.close();
    }
  });

  it('a new invite link has a copy button that puts the whole link on the clipboard', async () => {
    const context = contexts.owner as BrowserContext;
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
    const page = await open('owner', SIZES.phone, `/workspaces/${scene.teamId}`);
    try {
      await page.getByLabel('Who is it for? (optional)').fill('Sam from support');
      await page.getByRole('button', { name: 'Create invite link' }).click();
      const link = await page.getByLabel('Invite link', { exact: true }).inputValue();
      expect(link).toMatch(/\/invite\?token=sim_iv_/);
      expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
      await page.getByRole('button', { name: 'Copy the invite link' }).click();
      await expect.poll(() => page.locator('.copy-field .copy-status').textContent()).toBe('Copied.');
      expect(await page.evaluate('navigator.clipboard.readText()')).toBe(link);
    } finally {
      await page.close();
    }
  });
});
