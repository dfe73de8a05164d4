import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { auth as authV1, extractWWWAuthenticateParams } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { saveUpstreamCredential } from '../../src/accounts/credentials.js';
import { SCOPE_DESCRIPTIONS } from '../../src/oauth/scopes.js';
import { newId } from '../../src/security/tokens.js';
import { launchBrowser } from '../helpers/browser.js';
import { CallbackServer, MemoryOAuthProvider } from '../helpers/oauth-provider.js';
import { startTeamServer, type TeamServer } from '../helpers/team-server.js';

/**
 * Scope ceilings without re-authorization loops, with the SDK's own clients (v2 on the
 * 2026-07-28 revision, v1 on 2025-era ones), their OAuth providers and headless Chromium:
 * - the person consented to fewer permissions than their role allows: 403 insufficient_scope, the
 *   re-authorization's consent page offers the missing permission ticked, and after Allow the call
 *   works, with still one connected app;
 * - the team role excludes the permission: the call is a tool error naming it and who can grant it,
 *   no re-authorization, no new connected app, an audit event with the reason.
 */
const PASSWORD = 'a long enough passphrase 42';
const EMAIL = `step-up-${process.pid}@example.com`;
const TEAM = 'Read Only Team';
const WRITE = SCOPE_DESCRIPTIONS['searches:write'];
const SEARCH = { query: 'heat pumps', platforms: ['reddit'], max_post: 10 };
/** The v2 client negotiating the 2026-07-28 revision (stateless, no initialize handshake). */
const MODERN = { versionNegotiation: { mode: 'auto' as const } };

let ts: TeamServer;
let callback: CallbackServer;
let browser: Awaited<ReturnType<typeof launchBrowser>>;
let page: Page;
let personId: string;
let personalId: string;
let teamId: string;

beforeAll(async () => {
  ts = await startTeamServer();
  callback = await new CallbackServer().start();
  browser = await launchBrowser();
  page = await (await browser.newContext()).newPage();
  // The person signs up; both their workspaces get sandbox credentials below.
  await page.goto(`${ts.url}/sign-up`);
  await page.getByLabel('Email').fill(EMAIL);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.waitForURL(/\/account/);
  personId = ((await ts.server.sql.get('SELECT id FROM users WHERE email = ?', EMAIL)) as { id: string }).id;
  personalId = (
    (await ts.server.sql.get(
      "SELECT id FROM workspaces WHERE kind = 'personal' AND id IN (SELECT workspace_id FROM workspace_members WHERE user_id = ?)",
      personId,
    )) as { id: string }
  ).id;
  // A team whose admin made them read-only (the member settings page writes max_scopes).
  teamId = newId();
  const now = Date.now();
  await ts.server.sql.run(
    'INSERT INTO workspaces (id, name, kind, created_at, updated_at) VALUES (?, ?, ?, ?, ?)',
    teamId,
    TEAM,
    'team',
    now,
    now,
  );
  await ts.server.sql.run(
    'INSERT INTO workspace_members (workspace_id, user_id, role, max_scopes, created_at) VALUES (?, ?, ?, ?, ?)',
    teamId,
    personId,
    'member',
    'searches:read agent:read account:read',
    now,
  );
  for (const workspaceId of [personalId, teamId]) {
    const { token } = await ts.control('POST', '/credentials', { credits: 1000 });
    await saveUpstreamCredential(ts.server.db, ts.server.secrets, {
      workspaceId,
      linkedBy: personId,
      token,
      upstreamUserId: 'step-up-person',
      verifiedAt: now,
    });
  }
});

afterAll(async () => {
  await browser?.close();
  await callback?.close();
  await ts?.close();
});

interface ConsentSeen {
  ticked: string[];
  marked: string[];
}

/**
 * What the person does in the browser the client opened: choose the workspace, untick what they do not
 * want, Allow. Returns what the consent page offered.
 */
async function decideInBrowser(
  url: URL,
  choice: { workspace: string; untick?: string[] },
): Promise<ConsentSeen> {
  const arrived = callback.next();
  await page.goto(url.href);
  const boxes = page.getByRole('checkbox');
  const seen: ConsentSeen = { ticked: [], marked: [] };
  for (let i = 0; i < (await boxes.count()); i++) {
    const box = boxes.nth(i);
    const label = (await box.locator('xpath=..').textContent()) ?? '';
    if (await box.isChecked()) seen.ticked.push(label);
    if (label.includes('(new')) seen.marked.push(label);
  }
  await page.getByLabel('Workspace', { exact: true }).selectOption(choice.workspace);
  for (const label of choice.untick ?? []) await page.getByRole('checkbox', { name: label }).uncheck();
  await page.getByRole('button', { name: 'Allow' }).click();
  await arrived;
  return seen;
}

async function liveGrants(clientId: string): Promise<Array<{ scopes: string; workspace_id: string }>> {
  return (await ts.server.sql.all(
    'SELECT scopes, workspace_id FROM oauth_grants WHERE client_id = ? AND user_id = ? AND revoked_at IS NULL',
    clientId,
    personId,
  )) as Array<{ scopes: string; workspace_id: string }>;
}

function clientIdOf(provider: MemoryOAuthProvider): string {
  return (provider.clientInfo as { client_id: string }).client_id;
}

describe('Ceiling allows the scope but the grant lacks it: 403 insufficient_scope, then a step-up that works', () => {
  it('v2 client (2026-07-28): re-authorizes on the 403, the consent page offers the permission ticked and new, the call then works', async () => {
    const pages: ConsentSeen[] = [];
    const provider = new MemoryOAuthProvider({
      redirectUrl: callback.url,
      clientName: 'Step-up v2',
      onRedirect: async (url) => {
        pages.push(
          await decideInBrowser(url, { workspace: personalId, untick: pages.length === 0 ? [WRITE] : [] }),
        );
      },
    });
    const mcpUrl = new URL(`${ts.url}/mcp`);
    const first = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider });
    await new Client({ name: 'step-up-v2', version: '1.0.0' }, MODERN).connect(first).catch(() => {});
    await first.finishAuth(callback.received.at(-1) as URLSearchParams);
    const transport = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider });
    const client = new Client({ name: 'step-up-v2', version: '1.0.0' }, MODERN);
    await client.connect(transport);
    const clientId = clientIdOf(provider);
    expect((await liveGrants(clientId)).map((g) => g.scopes)).toEqual([
      'searches:read agent:read agent:write account:read account:write',
    ]);
    const before = provider.savedTokens as { access_token: string };
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain('submit_keyword_search');

    // The SDK meets 403 insufficient_scope and re-authorizes with the union of scopes (SEP-2350).
    await expect(client.callTool({ name: 'submit_keyword_search', arguments: SEARCH })).rejects.toThrow();
    expect(provider.redirects).toHaveLength(2);
    const stepUp = provider.redirects[1] as URL;
    expect(stepUp.searchParams.get('scope')?.split(' ')).toContain('searches:write');
    expect(pages[1]?.ticked.some((label) => label.includes(WRITE))).toBe(true);
    expect(pages[1]?.marked).toHaveLength(1);
    expect(pages[1]?.marked[0]).toContain(WRITE);
    await transport.finishAuth(callback.received.at(-1) as URLSearchParams);

    const after = new Client({ name: 'step-up-v2', version: '1.0.0' }, MODERN);
    await after.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }));
    const result = await after.callTool({ name: 'submit_keyword_search', arguments: SEARCH });
    expect(result.isError).toBeFalsy();
    // One connected app, now with the permission; the first authorization's token was not revoked.
    expect((await liveGrants(clientId)).map((g) => g.scopes)).toEqual([
      'searches:read searches:write agent:read agent:write account:read account:write',
    ]);
    const old = await fetch(mcpUrl, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${before.access_token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    expect(old.status).toBe(200);
    await old.body?.cancel();
    await after.close();
  });

  it('v1 client: its automatic attempt (a refresh) cannot widen the grant and stops; re-authorizing with the challenged scope works', async () => {
    const pages: ConsentSeen[] = [];
    const provider = new MemoryOAuthProvider({
      redirectUrl: callback.url,
      clientName: 'Step-up v1',
      onRedirect: async (url) => {
        pages.push(
          await decideInBrowser(url, { workspace: personalId, untick: pages.length === 0 ? [WRITE] : [] }),
        );
      },
    });
    let challenge: string | undefined;
    const recording: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      if (res.status === 403) challenge = extractWWWAuthenticateParams(res).scope;
      return res;
    };
    const mcpUrl = new URL(`${ts.url}/mcp`);
    const first = new V1Transport(mcpUrl, { authProvider: provider as never });
    await new V1Client({ name: 'step-up-v1', version: '1.0.0' }).connect(first).catch(() => {});
    await first.finishAuth(callback.received.at(-1)?.get('code') as string);
    const client = new V1Client({ name: 'step-up-v1', version: '1.0.0' });
    await client.connect(new V1Transport(mcpUrl, { authProvider: provider as never, fetch: recording }));
    const clientId = clientIdOf(provider);

    // v1 answers the 403 by refreshing (RFC 6749 §6: a refresh never widens), gets the same 403, stops.
    const saves = provider.tokenSaves;
    await expect(client.callTool({ name: 'submit_keyword_search', arguments: SEARCH })).rejects.toThrow(
      /403/,
    );
    expect(provider.tokenSaves).toBe(saves + 1);
    expect(provider.redirects).toHaveLength(1);
    expect(await liveGrants(clientId)).toHaveLength(1);
    expect(challenge?.split(' ')).toContain('searches:write');

    // The app re-authorizes with the challenged scope; the person sees it ticked and marked new.
    provider.savedTokens = undefined;
    expect(await authV1(provider as never, { serverUrl: mcpUrl, scope: challenge })).toBe('REDIRECT');
    expect(pages[1]?.marked[0]).toContain(WRITE);
    const code = callback.received.at(-1)?.get('code') as string;
    expect(await authV1(provider as never, { serverUrl: mcpUrl, authorizationCode: code })).toBe(
      'AUTHORIZED',
    );
    const after = new V1Client({ name: 'step-up-v1', version: '1.0.0' });
    await after.connect(new V1Transport(mcpUrl, { authProvider: provider as never }));
    expect((await after.callTool({ name: 'submit_keyword_search', arguments: SEARCH })).isError).toBeFalsy();
    expect(await liveGrants(clientId)).toHaveLength(1);
    expect((await liveGrants(clientId))[0]?.scopes).toContain('searches:write');
    await after.close();
    await client.close();
  });
});

describe("Scope outside the member's ceiling: a tool error, never a 403 no re-authorization can win", () => {
  async function ceilingRefusals(clientId: string) {
    return (await ts.server.sql.all(
      "SELECT tool, status, detail FROM audit_events WHERE kind = 'tool_call' AND client_id = ? AND status = 'refused'",
      clientId,
    )) as Array<{ tool: string; status: string; detail: string }>;
  }

  async function expectRefusedWithoutLoop(
    provider: MemoryOAuthProvider,
    call: () => Promise<Record<string, unknown>>,
  ) {
    const clientId = clientIdOf(provider);
    const redirects = provider.redirects.length;
    const saves = provider.tokenSaves;
    const result = await call();
    expect(result.isError).toBe(true);
    const text = JSON.stringify(result.content);
    expect(text).toContain(WRITE);
    expect(text).toMatch(/A team owner or admin can grant it/);
    // No re-authorization, no refresh, no new connected app.
    expect(provider.redirects.length).toBe(redirects);
    expect(provider.tokenSaves).toBe(saves);
    expect(await liveGrants(clientId)).toEqual([
      { scopes: 'searches:read agent:read account:read', workspace_id: teamId },
    ]);
    const refusals = await ceilingRefusals(clientId);
    expect(refusals.at(-1)?.tool).toBe('submit_keyword_search');
    expect(JSON.parse(refusals.at(-1)?.detail ?? '{}')).toEqual({
      reason: 'scope_ceiling',
      scope: 'searches:write',
    });
  }

  it('v2 client (2026-07-28): the write tool is not listed, and calling it is a tool error naming who can grant it', async () => {
    const provider = new MemoryOAuthProvider({
      redirectUrl: callback.url,
      clientName: 'Ceiling v2',
      onRedirect: async (url) => {
        await decideInBrowser(url, { workspace: teamId });
      },
    });
    const mcpUrl = new URL(`${ts.url}/mcp`);
    const first = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider });
    await new Client({ name: 'ceiling-v2', version: '1.0.0' }, MODERN).connect(first).catch(() => {});
    await first.finishAuth(callback.received.at(-1) as URLSearchParams);
    const client = new Client({ name: 'ceiling-v2', version: '1.0.0' }, MODERN);
    await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }));
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain('submit_keyword_search');
    await expectRefusedWithoutLoop(provider, () =>
      client.callTool({ name: 'submit_keyword_search', arguments: SEARCH }),
    );
    await client.close();
  });

  it('v1 client (2025 era): the same tool error, no refresh and no re-authorization', async () => {
    const provider = new MemoryOAuthProvider({
      redirectUrl: callback.url,
      clientName: 'Ceiling v1',
      onRedirect: async (url) => {
        await decideInBrowser(url, { workspace: teamId });
      },
    });
    const mcpUrl = new URL(`${ts.url}/mcp`);
    const first = new V1Transport(mcpUrl, { authProvider: provider as never });
    await new V1Client({ name: 'ceiling-v1', version: '1.0.0' }).connect(first).catch(() => {});
    await first.finishAuth(callback.received.at(-1)?.get('code') as string);
    const client = new V1Client({ name: 'ceiling-v1', version: '1.0.0' });
    await client.connect(new V1Transport(mcpUrl, { authProvider: provider as never }));
    await expectRefusedWithoutLoop(provider, () =>
      client.callTool({ name: 'submit_keyword_search', arguments: SEARCH }),
    );
    await client.close();
  });
});
