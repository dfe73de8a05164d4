import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { and, eq } from 'drizzle-orm';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultUpstreamUserId } from '../../src/accounts/credentials.js';
import { first as firstRow } from '../../src/db/store/index.js';
import { SCOPE_DESCRIPTIONS } from '../../src/oauth/scopes.js';
import { launchBrowser } from '../helpers/browser.js';
import { CallbackServer, MemoryOAuthProvider } from '../helpers/oauth-provider.js';
import { startTeamServer, type TeamServer } from '../helpers/team-server.js';

/**
 * Teams end to end, in Chromium: an admin creates a team, links sandbox credentials and invites a
 * second person; they sign up through the link, connect the v2 SDK client (real OAuth, picking the team
 * on the consent page), and their tool calls reach the sandbox with the team's token and their own
 * user id. The admin makes them read-only (their next write call: a tool error saying a team admin can
 * grant it, never a 403 the client cannot win, and the write tools leave tools/list), then removes them
 * (their next call: 401).
 */
const TEAM = 'Sandbox Research';
const ADMIN_EMAIL = `team-admin-${process.pid}@example.com`;
const MEMBER_EMAIL = `team-member-${process.pid}@example.com`;
const PASSWORD = 'a long enough passphrase 42';

let ts: TeamServer;
let browser: Browser;
let adminContext: BrowserContext;
let memberContext: BrowserContext;
let adminPage: Page;
let memberPage: Page;
let callback: CallbackServer;

let teamId: string;
let inviteLink: string;
let provider: MemoryOAuthProvider;
let client: Client;

beforeAll(async () => {
  ts = await startTeamServer();
  callback = await new CallbackServer().start();
  browser = await launchBrowser();
  adminContext = await browser.newContext();
  memberContext = await browser.newContext();
  adminPage = await adminContext.newPage();
  memberPage = await memberContext.newPage();
});

afterAll(async () => {
  await client?.close().catch(() => {});
  await browser?.close();
  await callback?.close();
  await ts?.close();
});

async function userId(email: string): Promise<string> {
  return (
    await firstRow(
      ts.server.db.orm.select().from(ts.server.db.t.users).where(eq(ts.server.db.t.users.email, email)),
    )
  )?.id as string;
}

/** The team's upstream token, as the server holds it (decrypted here only to read the sandbox log). */
async function teamToken(): Promise<string> {
  const row = await firstRow(
    ts.server.db.orm
      .select()
      .from(ts.server.db.t.upstreamCredentials)
      .where(eq(ts.server.db.t.upstreamCredentials.workspaceId, teamId)),
  );
  if (!row) throw new Error('no credential linked');
  return ts.server.secrets.open(row.tokenCiphertext, teamId);
}

/** A tools/call straight to /mcp with the client's current access token: the HTTP status is the point. */
function rawToolCall(name: string, args: Record<string, unknown>) {
  return fetch(`${ts.url}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${(provider.savedTokens as { access_token: string }).access_token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name, arguments: args } }),
  });
}

const SEARCH = { query: 'heat pumps', platforms: ['reddit'], max_post: 10 };

describe('a team shares one upstream credential', () => {
  it('the admin signs up, creates the team and links sandbox credentials', async () => {
    await adminPage.goto(`${ts.url}/sign-up`);
    await adminPage.getByLabel('Email').fill(ADMIN_EMAIL);
    await adminPage.getByLabel('Password').fill(PASSWORD);
    await adminPage.getByRole('button', { name: 'Create account' }).click();
    await adminPage.waitForURL(/\/account/);

    await adminPage.getByRole('link', { name: 'Create a team' }).click();
    await adminPage.getByLabel('Team name').fill(TEAM);
    await adminPage.getByRole('button', { name: 'Create team' }).click();
    // The connect page, starting with the new team's next steps.
    await adminPage.waitForURL(/\/connect\?workspace=[^&]+&done=team_created/);
    teamId = new URL(adminPage.url()).searchParams.get('workspace') as string;
    expect(
      (
        await firstRow(
          ts.server.db.orm
            .select()
            .from(ts.server.db.t.workspaces)
            .where(eq(ts.server.db.t.workspaces.id, teamId)),
        )
      )?.kind,
    ).toBe('team');
    expect(await adminPage.getByRole('heading', { name: `Set up ${TEAM}` }).count()).toBe(1);
    await adminPage.goto(`${ts.url}/workspaces/${teamId}`);
    expect(await adminPage.getByRole('heading', { level: 1 }).textContent()).toBe(TEAM);

    await adminPage
      .getByRole('navigation', { name: 'Workspace' })
      .getByRole('link', { name: 'API credentials' })
      .click();
    await adminPage.getByRole('button', { name: 'Use sandbox credentials' }).click();
    await adminPage.waitForURL(/done=saved/);
    expect(await teamToken()).toMatch(/^sbx_/);
  });

  it('the admin creates an invite link', async () => {
    await adminPage.goto(`${ts.url}/workspaces/${teamId}`);
    await adminPage.getByLabel('Invite role').selectOption('member');
    await adminPage.getByRole('button', { name: 'Create invite link' }).click();
    inviteLink = await adminPage.getByLabel('Invite link', { exact: true }).inputValue();
    expect(inviteLink).toMatch(/\/invite\?token=sim_iv_/);
  });

  it('the second person opens the link, creates an account and is a member', async () => {
    await memberPage.goto(inviteLink);
    expect(await memberPage.textContent('main')).toMatch(
      new RegExp(`invited to join\\s+${TEAM}\\s+as a member`),
    );
    await memberPage.getByRole('link', { name: 'Create an account to accept' }).click();
    await memberPage.getByLabel('Email').fill(MEMBER_EMAIL);
    await memberPage.getByLabel('Password').fill(PASSWORD);
    await memberPage.getByRole('button', { name: 'Create account' }).click();
    await memberPage.waitForURL(/\/invite\?token=/);
    expect(await memberPage.getByRole('status').textContent()).toContain(`You are a member of ${TEAM}`);
    const membership = await firstRow(
      ts.server.db.orm
        .select()
        .from(ts.server.db.t.workspaceMembers)
        .where(
          and(
            eq(ts.server.db.t.workspaceMembers.workspaceId, teamId),
            eq(ts.server.db.t.workspaceMembers.userId, await userId(MEMBER_EMAIL)),
          ),
        ),
    );
    expect(membership?.role).toBe('member');
  });

  it('the member connects an MCP client, picking the team on the consent page', async () => {
    provider = new MemoryOAuthProvider({
      redirectUrl: callback.url,
      clientName: 'Team member laptop',
      onRedirect: async (url: URL) => {
        const arrived = callback.next();
        await memberPage.goto(url.href);
        expect(await memberPage.getByRole('heading', { level: 1 }).textContent()).toContain('Allow');
        await memberPage.getByLabel('Workspace', { exact: true }).selectOption({ label: TEAM });
        await memberPage.getByRole('button', { name: 'Allow' }).click();
        await arrived;
      },
    });
    const mcpUrl = new URL(`${ts.url}/mcp`);
    const first = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider });
    const failure = await new Client({ name: 'team-e2e', version: '1.0.0' })
      .connect(first)
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(Error);
    await first.finishAuth(callback.received.at(-1) as URLSearchParams);
    client = new Client({ name: 'team-e2e', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }));
    const grant = await firstRow(
      ts.server.db.orm
        .select()
        .from(ts.server.db.t.oauthGrants)
        .where(eq(ts.server.db.t.oauthGrants.userId, await userId(MEMBER_EMAIL))),
    );
    expect(grant?.workspaceId).toBe(teamId);
  });

  it('their tool calls reach the sandbox with the team token and their own user id', async () => {
    const token = await teamToken();
    const before = (await ts.requests(token)).length;
    const search = await client.callTool({ name: 'submit_keyword_search', arguments: SEARCH });
    expect(search.isError).toBeFalsy();
    const list = await client.callTool({ name: 'get_keyword_searches', arguments: {} });
    expect(list.isError).toBeFalsy();
    const log = (await ts.requests(token)).slice(before);
    expect(log.length).toBeGreaterThanOrEqual(2);
    const memberUpstreamId = defaultUpstreamUserId(await userId(MEMBER_EMAIL));
    expect(new Set(log.map((r) => r.user_id))).toEqual(new Set([memberUpstreamId]));
    expect(memberUpstreamId).not.toBe(defaultUpstreamUserId(await userId(ADMIN_EMAIL)));
    // The member sees the app in their name; the admin sees it in the team's list.
    await memberPage.goto(`${ts.url}/account/apps`);
    expect(await memberPage.getByRole('cell', { name: 'Team member laptop', exact: true }).count()).toBe(1);
    await adminPage.goto(`${ts.url}/workspaces/${teamId}/apps`);
    expect(await adminPage.getByRole('cell', { name: MEMBER_EMAIL, exact: true }).count()).toBe(1);
  });

  it('the admin makes them read-only: the next write call gets a tool error naming who can grant it, no re-authorization', async () => {
    await adminPage.goto(`${ts.url}/workspaces/${teamId}`);
    await adminPage.getByRole('link', { name: `Settings for ${MEMBER_EMAIL}` }).click();
    for (const scope of ['searches:write', 'agent:write', 'account:write'] as const) {
      await adminPage.getByRole('checkbox', { name: SCOPE_DESCRIPTIONS[scope], exact: true }).uncheck();
    }
    await adminPage.getByRole('button', { name: 'Save member settings' }).click();
    await adminPage.waitForURL(/done=policy/);

    const before = (await ts.requests(await teamToken())).length;
    const res = await rawToolCall('submit_keyword_search', SEARCH);
    expect(res.status).toBe(200);
    expect(res.headers.get('www-authenticate')).toBeNull();
    const redirects = provider.redirects.length;
    const refused = await client.callTool({ name: 'submit_keyword_search', arguments: SEARCH });
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.content)).toMatch(/team owner or admin can grant it/);
    expect(provider.redirects.length).toBe(redirects);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('get_keyword_searches');
    expect(names).not.toContain('submit_keyword_search');
    expect(names).not.toContain('start_agent_run');
    // Reads still work, and nothing of the refused write reached the sandbox.
    expect((await client.callTool({ name: 'get_keyword_searches', arguments: {} })).isError).toBeFalsy();
    const after = await ts.requests(await teamToken());
    expect(after.length).toBe(before + 1);
    expect(after.at(-1)?.method).toBe('GET');
  });

  it('the admin removes them: their next call gets 401 and their app is gone', async () => {
    await adminPage.goto(`${ts.url}/workspaces/${teamId}`);
    await adminPage.getByRole('button', { name: `Remove ${MEMBER_EMAIL}` }).click();
    await adminPage.waitForURL(/done=removed/);
    expect(await adminPage.getByRole('cell', { name: MEMBER_EMAIL, exact: true }).count()).toBe(0);

    const res = await rawToolCall('get_keyword_searches', {});
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
    await memberPage.goto(`${ts.url}/account/apps`);
    expect(await memberPage.getByText('No connected apps.').count()).toBe(1);
  });
});
