import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getMembership } from '../../src/accounts/workspaces.js';
import { SCOPE_DESCRIPTIONS, SCOPES } from '../../src/oauth/scopes.js';
import { acceptInvite, createInvite } from '../../src/teams/invites.js';
import { setMemberPolicy } from '../../src/teams/member-policy.js';
import { changeRole, listMembers } from '../../src/teams/members.js';
import { getTeamSettings } from '../../src/teams/team-settings.js';
import { createTeam } from '../../src/teams/teams.js';
import { launchBrowser } from '../helpers/browser.js';
import { makePerson, ok, PASSWORD } from '../helpers/team-fixture.js';
import { startTeamServer, type TeamServer } from '../helpers/team-server.js';

/**
 * The new team settings in Chromium, on a phone and a desktop: the team's rules and its read setting,
 * the member settings' "Read-only" preset and "Can change team webhook" switch, an admin failing to
 * lift their own limits, and the audit trail saying what happened in plain words.
 */
let ts: TeamServer;
let browser: Browser;

beforeAll(async () => {
  ts = await startTeamServer();
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await ts?.close();
});

async function team(label: string) {
  const { db } = ts.server;
  const owner = await makePerson(ts, `owner-${label}`);
  const admin = await makePerson(ts, `admin-${label}`);
  const member = await makePerson(ts, `member-${label}`);
  const id = ok(await createTeam(db, owner.id, `Team ${label}`));
  for (const p of [admin, member]) {
    const invite = ok(
      await createInvite(db, id, owner.id, { role: 'member', maxUses: '1', expiresInDays: '1' }),
    );
    ok(await acceptInvite(db, invite.token, id, p.id));
  }
  ok(await changeRole(db, id, owner.id, admin.id, 'admin'));
  return { id, owner, admin, member };
}

/** A page signed in as the person through the sign-in page, at the given viewport width. */
async function signedIn(email: string, width: number): Promise<Page> {
  const context = await browser.newContext({ viewport: { width, height: width < 600 ? 844 : 800 } });
  const page = await context.newPage();
  await page.goto(`${ts.url}/sign-in`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(/\/account/);
  return page;
}

async function noHorizontalScroll(page: Page) {
  expect(
    Number(await page.evaluate('document.documentElement.scrollWidth - window.innerWidth')),
  ).toBeLessThanOrEqual(0);
}

const READ_ONLY = ['searches:read', 'agent:read', 'account:read'] as const;

describe.each([390, 1280])('team settings at %i px', (width) => {
  let t: Awaited<ReturnType<typeof team>>;
  let owner: Page;
  let admin: Page;

  beforeAll(async () => {
    t = await team(String(width));
    owner = await signedIn(t.owner.email, width);
    admin = await signedIn(t.admin.email, width);
  });
  afterAll(async () => {
    await owner?.context().close();
    await admin?.context().close();
  });

  it('the team page states the rules and lets an owner keep members to their own work', async () => {
    await owner.goto(`${ts.url}/workspaces/${t.id}`);
    const rules = owner.getByRole('region', { name: 'How this team shares its account' });
    await expect(rules.textContent()).resolves.toMatch(/Members can read teammates’ agent runs/);
    await expect(rules.textContent()).resolves.toMatch(/Only owners and admins can change the team webhook/);
    const box = owner.getByRole('checkbox', { name: 'Members can read teammates’ runs and searches' });
    expect(await box.isChecked()).toBe(true);
    await box.uncheck();
    await owner.getByRole('button', { name: 'Save team settings' }).click();
    await owner.waitForURL(/done=settings/);
    await expect(owner.getByRole('status').first().textContent()).resolves.toContain('Team settings saved');
    await expect(rules.textContent()).resolves.toMatch(/Members read and list only their own/);
    expect((await getTeamSettings(ts.server.db, t.id)).membersReadTeamWork).toBe(false);
  });

  it('member settings: the Read-only preset and the "Can change team webhook" switch', async () => {
    await owner.goto(`${ts.url}/workspaces/${t.id}`);
    await owner.getByRole('link', { name: `Settings for ${t.member.email}` }).click();
    for (const s of SCOPES) {
      expect(
        await owner.getByRole('checkbox', { name: SCOPE_DESCRIPTIONS[s], exact: true }).isChecked(),
      ).toBe(true);
    }
    const webhook = owner.getByRole('checkbox', { name: 'Can change team webhook' });
    expect(await webhook.isChecked()).toBe(false);
    await noHorizontalScroll(owner);

    await owner.getByRole('button', { name: 'Read-only', exact: true }).click();
    await owner.waitForURL(/done=policy/);
    const memberRow = owner.getByRole('row', { name: new RegExp(t.member.email) });
    await expect(memberRow.textContent()).resolves.toMatch(/Read-only.*Cannot change team webhook/s);
    expect((await listMembers(ts.server.db, t.id)).find((m) => m.userId === t.member.id)?.maxScopes).toEqual(
      READ_ONLY,
    );

    await owner.getByRole('link', { name: `Settings for ${t.member.email}` }).click();
    for (const s of SCOPES) {
      const ticked = await owner
        .getByRole('checkbox', { name: SCOPE_DESCRIPTIONS[s], exact: true })
        .isChecked();
      expect(ticked, s).toBe((READ_ONLY as readonly string[]).includes(s));
    }
    await owner.getByRole('checkbox', { name: 'Can change team webhook' }).check();
    await owner.getByRole('button', { name: 'Save member settings' }).click();
    await owner.waitForURL(/done=policy/);
    await expect(memberRow.textContent()).resolves.toMatch(/Read-only.*Can change team webhook/s);
  });

  it('an admin whose permissions an owner cut cannot tick them back on their own settings page', async () => {
    ok(
      await setMemberPolicy(ts.server.db, t.id, t.owner.id, t.admin.id, {
        upstreamUserId: '',
        maxScopes: ['searches:read'],
        monthlyWriteCap: '',
      }),
    );
    await admin.goto(`${ts.url}/workspaces/${t.id}`);
    await admin.getByRole('link', { name: `Settings for ${t.admin.email}` }).click();
    await expect(admin.locator('main').textContent()).resolves.toContain(
      'only an owner of the team can lift them',
    );
    for (const s of SCOPES)
      await admin.getByRole('checkbox', { name: SCOPE_DESCRIPTIONS[s], exact: true }).check();
    await admin.getByRole('button', { name: 'Save member settings' }).click();
    await expect(admin.getByRole('alert').first().textContent()).resolves.toMatch(
      /You cannot lift your own limits \(permissions\)/,
    );
    await noHorizontalScroll(admin);
    expect((await listMembers(ts.server.db, t.id)).find((m) => m.userId === t.admin.id)?.maxScopes).toEqual([
      'searches:read',
    ]);
    expect((await getMembership(ts.server.db, t.id, t.admin.id))?.role).toBe('admin');
  });

  it('the audit trail says what happened in plain words', async () => {
    await owner.goto(`${ts.url}/workspaces/${t.id}/audit`);
    const main = (await owner.locator('main').textContent()) ?? '';
    expect(main).toContain('Members now read only their own runs, schedules and searches.');
    expect(main).toContain(`Settings of ${t.member.email} (Read-only preset): read-only, no monthly cap`);
    expect(main).toContain(`Refused a settings change for ${t.admin.email}: You cannot lift your own limits`);
  });
});
