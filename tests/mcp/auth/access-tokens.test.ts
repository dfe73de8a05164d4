import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grantSubject } from '../../../src/db/store/index.js';
import { TOOLSETS } from '../../../src/mcp/tools/toolsets.js';
import { SCOPES, type Scope } from '../../../src/oauth/scopes.js';
import { isWellFormedPersonalToken } from '../../../src/security/tokens.js';
import { setAccessTokenSettings } from '../../../src/teams/access-token-settings.js';
import { setMemberPolicy } from '../../../src/teams/member-policy.js';
import { removeMember } from '../../../src/teams/members.js';
import { setTeamSettings } from '../../../src/teams/team-settings.js';
import { FormClient } from '../../helpers/forms.js';
import { type AnyClient, textOf } from '../../helpers/harness.js';
import { auditOf, makePerson, makeTeam, ok, PASSWORD, type Team } from '../../helpers/team-fixture.js';
import { type Json, startTeamServer, type TeamServer } from '../../helpers/team-server.js';

/**
 * Access tokens for automation: made on the account page (shown once, stored hashed), used from curl
 * and the v2 SDK client as a bearer token, held to every team rule an OAuth grant of the same person,
 * workspace and permissions is held to (each rule checked both ways), listed for the team's admins,
 * and refused the moment they are revoked, expire, or the team turns them off or shortens them.
 */
let ts: TeamServer;
let team: Team;
let alice: FormClient;

beforeAll(async () => {
  ts = await startTeamServer();
  team = await makeTeam(ts, 'Token Team');
  alice = new FormClient(ts.url);
  expect((await alice.signIn(team.alice.email, PASSWORD)).status).toBe(303);
});
afterAll(async () => {
  await team?.close();
  await ts?.close();
});

/** Makes a token on the account page as `browser`; answers the page's status and the token shown. */
async function makeToken(
  browser: FormClient,
  fields: {
    name?: string;
    workspace?: string;
    days?: string;
    scopes?: readonly Scope[];
    extra?: string[][];
  } = {},
): Promise<{ status: number; token: string | null; html: string }> {
  await browser.get('/account');
  const body = new URLSearchParams({
    name: fields.name ?? 'nightly job',
    workspace: fields.workspace ?? team.id,
    days: fields.days ?? '30',
    csrf: browser.csrf(),
  });
  for (const scope of fields.scopes ?? SCOPES) body.append('scope', scope);
  // As the form sends it: every toolset ticked unless the test chooses.
  body.append('toolsets_shown', '1');
  for (const [k, v] of fields.extra ?? TOOLSETS.map((t) => ['toolset', t]))
    body.append(k as string, v as string);
  const res = await fetch(`${ts.url}/account/tokens`, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      cookie: browser.cookieHeader(),
      origin: new URL(ts.url).origin,
    },
    body,
  });
  const html = await res.text();
  browser.lastHtml = html;
  return { status: res.status, token: /sim_pat_[A-Za-z0-9_-]{43}[0-9a-f]{8}/.exec(html)?.[0] ?? null, html };
}

/** A curl-like request to /mcp (the 2025-06-18 protocol needs no handshake on this server). */
async function curl(token: string, body: unknown): Promise<{ status: number; json: Json; headers: Headers }> {
  const res = await fetch(ts.mcpUrl, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
    },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  const data = text.startsWith('event:') ? (/^data: (.*)$/m.exec(text)?.[1] ?? 'null') : text;
  return { status: res.status, json: JSON.parse(data), headers: res.headers };
}

async function connectV2(token: string): Promise<AnyClient> {
  const client = new ClientV2({ name: 'ci-job', version: '1' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(
    new TransportV2(new URL(ts.mcpUrl), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
  );
  return client as unknown as AnyClient;
}

describe('made on the account page', () => {
  it('the form asks for a name, a workspace, days (30 offered) and permissions, none ticked for you', async () => {
    const res = await alice.get('/account');
    const html = await res.text();
    for (const label of ['Token name', 'Workspace', 'Expires after (days)', 'Create access token'])
      expect(html).toContain(label);
    expect(html).toMatch(/name="days"[^>]*value="30"/);
    expect(html).not.toMatch(/name="scope" value="[a-z:]+" checked/);
  });

  it('is shown once, well formed, stored only as a hash, and listed by name with a Revoke button', async () => {
    const made = await makeToken(alice, { name: 'report job', scopes: ['searches:read'] });
    expect(made.status).toBe(200);
    expect(made.html).toContain('only time it is shown');
    expect(made.html).toContain('--header');
    const token = made.token as string;
    expect(isWellFormedPersonalToken(token)).toBe(true);
    expect(isWellFormedPersonalToken(`${token.slice(0, -1)}${token.endsWith('0') ? '1' : '0'}`)).toBe(false);
    const { db } = ts.server;
    const rows = await db.orm.select().from(db.t.oauthTokens);
    expect(JSON.stringify(rows)).not.toContain(token.slice(8, 40));
    const page = await (await alice.get('/account')).text();
    expect(page).toContain('report job');
    expect(page).toContain('aria-label="Revoke report job"');
    expect(page).not.toContain(token);
    const created = (await auditOf(ts, team.id)).filter((e) => e.kind === 'access_token_created').at(-1);
    expect(created?.detail).toMatchObject({ name: 'report job', scopes: 'searches:read' });
  });

  it.each([
    ['no permission ticked', { scopes: [] }, 400, 'Tick at least one permission'],
    ['no name', { name: '  ' }, 400, 'Give the token a name'],
    ['an expiry past the workspace’s limit', { days: '91' }, 400, 'from 1 to 90'],
    ['an expiry that is not a number', { days: '3.5' }, 400, 'whole number of days'],
    [
      'a workspace that is not theirs',
      { workspace: '00000000-0000-4000-8000-000000000000' },
      404,
      'no such workspace',
    ],
  ])('refuses %s, and makes nothing', async (_what, fields, status, words) => {
    const before = (await auditOf(ts, team.id)).length;
    const made = await makeToken(alice, fields as never);
    expect(made.status).toBe(status);
    expect(made.token).toBeNull();
    expect(made.html).toContain(words);
    expect((await auditOf(ts, team.id)).length).toBe(before);
  });

  it('refuses permissions outside the member’s team ceiling', async () => {
    ok(
      await setMemberPolicy(ts.server.db, team.id, team.owner.id, team.bob.id, {
        upstreamUserId: '',
        maxScopes: ['searches:read', 'agent:read', 'account:read'],
        monthlyWriteCap: '',
      }),
    );
    const bob = new FormClient(ts.url);
    await bob.signIn(team.bob.email, PASSWORD);
    const made = await makeToken(bob, { scopes: ['searches:read', 'searches:write'] });
    expect(made.status).toBe(403);
    expect(made.html).toContain('team settings do not allow');
    expect((await makeToken(bob, { scopes: ['searches:read'] })).status).toBe(200);
    ok(
      await setMemberPolicy(ts.server.db, team.id, team.owner.id, team.bob.id, {
        upstreamUserId: '',
        maxScopes: [...SCOPES],
        monthlyWriteCap: '',
      }),
    );
  });

  it('refuses a form this site did not send', async () => {
    await alice.get('/account');
    const res = await alice.post(
      '/account/tokens',
      { name: 'x', workspace: team.id, days: '1', scope: 'searches:read' },
      { csrf: null },
    );
    expect(res.status).toBe(403);
  });
});

describe('used as a bearer token', () => {
  let token: string;
  beforeAll(async () => {
    token = (await makeToken(alice, { name: 'reader', scopes: ['searches:read', 'account:read'] }))
      .token as string;
  });

  it('from curl: lists the tools of its permissions and calls one, as the member', async () => {
    const list = await curl(token, { jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(list.status).toBe(200);
    const names = list.json.result.tools.map((t: Json) => t.name);
    expect(names).toContain('get_keyword_searches');
    expect(names).not.toContain('submit_keyword_search');
    const before = (await ts.requests(team.token)).length;
    const call = await curl(token, {
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'get_keyword_searches', arguments: {} },
    });
    expect(call.json.result.isError).toBeFalsy();
    const last = (await ts.requests(team.token)).slice(before).at(-1);
    expect(last?.user_id).toBe(team.alice.upstreamUserId);
  });

  it('from the v2 SDK client', async () => {
    const client = await connectV2(token);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain('usage');
      expect((await client.callTool({ name: 'usage', arguments: {} })).isError).toBeFalsy();
      // A permission the token was not given: a tool error saying so, never a 403 step-up.
      const refused = await client.callTool({ name: 'submit_keyword_search', arguments: { query: 'x' } });
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toContain('which this access token was not given');
    } finally {
      await client.close();
    }
  });

  it('is audited under the member, named by the token in the team’s audit trail', async () => {
    const calls = (await auditOf(ts, team.id)).filter((e) => e.kind === 'tool_call' && e.tool === 'usage');
    expect(calls.at(-1)).toMatchObject({ userId: team.alice.id, status: 'ok' });
    expect(calls.at(-1)?.clientId).toMatch(/^access-token:/);
    const owner = new FormClient(ts.url);
    await owner.signIn(team.owner.email, PASSWORD);
    const trail = await (await owner.get(`/workspaces/${team.id}/audit?tool=usage`)).text();
    expect(trail).toContain('Access token “reader”');
  });

  it('a malformed or unknown token is a 401 with the bearer challenge', async () => {
    for (const bad of [`${token.slice(0, -1)}x`, 'sim_pat_nothing']) {
      const res = await curl(bad, { jsonrpc: '2.0', id: 1, method: 'tools/list' });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer /);
    }
  });
});

/**
 * Every team rule, for one member's OAuth grant and access token with the same permissions: the same
 * refusal, and nothing sent upstream.
 */
describe('every team rule holds for an access token as for an OAuth grant', () => {
  let tokenClient: AnyClient;
  let bobsRun: string;
  const allScopes = { upstreamUserId: '', maxScopes: [...SCOPES], monthlyWriteCap: '' };
  beforeAll(async () => {
    tokenClient = await connectV2((await makeToken(alice, { name: 'every rule' })).token as string);
    const run = await team.bob.client.callTool({
      name: 'start_agent_run',
      arguments: { question: 'Bob asks?' },
    });
    bobsRun = (run.structuredContent as Json).run_id;
  });
  afterAll(async () => {
    await tokenClient?.close();
  });

  const rules: Array<{
    rule: string;
    set: () => Promise<unknown>;
    reset: () => Promise<unknown>;
    call: () => { name: string; arguments: Record<string, unknown> };
    refusal: RegExp;
  }> = [
    {
      rule: 'a scope ceiling lowered after it was made',
      set: () =>
        setMemberPolicy(ts.server.db, team.id, team.owner.id, team.alice.id, {
          ...allScopes,
          maxScopes: ['searches:read', 'agent:read', 'account:read'],
        }),
      reset: () => setMemberPolicy(ts.server.db, team.id, team.owner.id, team.alice.id, allScopes),
      call: () => ({ name: 'start_agent_run', arguments: { question: 'Q?' } }),
      refusal: /A team owner or admin can grant it/,
    },
    {
      rule: 'the monthly cap on credit-spending calls',
      set: () =>
        setMemberPolicy(ts.server.db, team.id, team.owner.id, team.alice.id, {
          ...allScopes,
          monthlyWriteCap: '0',
        }),
      reset: () => setMemberPolicy(ts.server.db, team.id, team.owner.id, team.alice.id, allScopes),
      call: () => ({ name: 'submit_keyword_search', arguments: { query: 'heat pumps' } }),
      refusal: /^Monthly limit reached/,
    },
    {
      rule: 'members change only their own runs',
      set: async () => {},
      reset: async () => {},
      call: () => ({ name: 'cancel_agent_run', arguments: { run_id: bobsRun } }),
      refusal: /belongs to another team member/,
    },
    {
      rule: 'only owners and admins change the team webhook',
      set: async () => {},
      reset: async () => {},
      call: () => ({ name: 'update_integration_setup', arguments: { return_url: 'https://example.com/h' } }),
      refusal: /only the team's owners and admins may change it/,
    },
    {
      rule: 'members read only their own work when the team says so',
      set: () => setTeamSettings(ts.server.db, team.id, team.owner.id, { membersReadTeamWork: false }),
      reset: () => setTeamSettings(ts.server.db, team.id, team.owner.id, { membersReadTeamWork: true }),
      call: () => ({ name: 'get_agent_run', arguments: { run_id: bobsRun } }),
      refusal: /lets members read only their own/,
    },
  ];

  it.each(rules)('$rule', async ({ set, reset, call, refusal }) => {
    await set();
    try {
      for (const [way, client] of [
        ['OAuth grant', team.alice.client],
        ['access token', tokenClient],
      ] as const) {
        const before = (await ts.requests(team.token)).filter((r) => r.method !== 'GET').length;
        const result = await client.callTool(call());
        expect(result.isError, way).toBe(true);
        expect(textOf(result), way).toMatch(refusal);
        expect((await ts.requests(team.token)).filter((r) => r.method !== 'GET').length, way).toBe(before);
      }
    } finally {
      await reset();
    }
  });

  it('removal from the team ends both at once', async () => {
    const carol = await makePerson(ts, 'carol');
    const { db } = ts.server;
    const { acceptInvite, createInvite } = await import('../../../src/teams/invites.js');
    const invite = ok(
      await createInvite(db, team.id, team.owner.id, { role: 'member', maxUses: '1', expiresInDays: '1' }),
    );
    ok(await acceptInvite(db, invite.token, team.id, carol.id));
    const { accessTokenFor } = await import('../../helpers/team-fixture.js');
    const oauth = await accessTokenFor(ts, carol.id, team.id);
    const browser = new FormClient(ts.url);
    await browser.signIn(carol.email, PASSWORD);
    const token = (await makeToken(browser, { name: 'carol job' })).token as string;
    for (const t of [oauth, token])
      expect((await curl(t, { jsonrpc: '2.0', id: 1, method: 'ping' })).status).toBe(200);
    ok(await removeMember(db, team.id, team.owner.id, carol.id));
    for (const t of [oauth, token])
      expect((await curl(t, { jsonrpc: '2.0', id: 1, method: 'ping' })).status).toBe(401);
    const refused = await curl(token, { jsonrpc: '2.0', id: 1, method: 'ping' });
    expect(refused.json.error.message).toContain('this access token was made for');
  });
});

describe('the end of a token', () => {
  const ping = async (token: string) => (await curl(token, { jsonrpc: '2.0', id: 1, method: 'ping' })).status;

  it('revoked on the account page: refused at the next request', async () => {
    const token = (await makeToken(alice, { name: 'to revoke' })).token as string;
    expect(await ping(token)).toBe(200);
    expect(await ping(token)).toBe(200);
    const { db } = ts.server;
    const grant = await db.orm
      .select({ id: db.t.oauthGrants.id })
      .from(db.t.oauthGrants)
      .where(and(eq(db.t.oauthGrants.name, 'to revoke'), eq(db.t.oauthGrants.userId, team.alice.id)));
    await alice.get('/account');
    const res = await alice.post('/account/tokens/revoke', { token: grant[0]?.id ?? '' });
    expect(res.status).toBe(303);
    expect(await ping(token)).toBe(401);
    expect((await alice.get('/account')).status).toBe(200);
    expect(alice.lastHtml).not.toContain('Revoke to revoke');
    const revoked = (await auditOf(ts, team.id)).filter((e) => e.kind === 'access_token_revoked').at(-1);
    expect(revoked?.detail).toMatchObject({ name: 'to revoke', reason: 'revoked_by_user' });
  });

  it('expired: refused the moment it expires, with no write to announce it', async () => {
    const token = (await makeToken(alice, { name: 'short lived' })).token as string;
    const { db } = ts.server;
    const [row] = await db.orm
      .select({ id: db.t.oauthGrants.id })
      .from(db.t.oauthGrants)
      .where(eq(db.t.oauthGrants.name, 'short lived'));
    await db.orm
      .update(db.t.oauthTokens)
      .set({ expiresAt: Date.now() + 600 })
      .where(eq(db.t.oauthTokens.grantId, row?.id ?? ''));
    await db.invalidate(grantSubject(row?.id ?? ''));
    expect(await ping(token)).toBe(200);
    await new Promise((r) => setTimeout(r, 700));
    const refused = await curl(token, { jsonrpc: '2.0', id: 1, method: 'ping' });
    expect(refused.status).toBe(401);
    expect(refused.json.error.message).toBe('The access token has expired.');
  });

  it('owners and admins see every member’s token and revoke it; members cannot open that page', async () => {
    const token = (await makeToken(alice, { name: 'admin will revoke' })).token as string;
    const admin = new FormClient(ts.url);
    await admin.signIn(team.admin.email, PASSWORD);
    const page = await (await admin.get(`/workspaces/${team.id}/apps`)).text();
    expect(page).toContain('admin will revoke');
    const { db } = ts.server;
    const [row] = await db.orm
      .select({ id: db.t.oauthGrants.id })
      .from(db.t.oauthGrants)
      .where(eq(db.t.oauthGrants.name, 'admin will revoke'));
    const grantId = row?.id;
    expect(page).toContain(`name="token" value="${grantId}"`);
    expect((await admin.post(`/workspaces/${team.id}/tokens/revoke`, { token: grantId ?? '' })).status).toBe(
      303,
    );
    expect(await ping(token)).toBe(401);
    expect((await alice.get(`/workspaces/${team.id}/apps`)).status).toBe(403);
  });

  it('a team that lowers the longest lifetime shortens tokens already made; one that turns tokens off ends them all', async () => {
    const { db } = ts.server;
    const older = (await makeToken(alice, { name: 'made long ago' })).token as string;
    const fresh = (await makeToken(alice, { name: 'made today' })).token as string;
    await db.orm
      .update(db.t.oauthGrants)
      .set({ createdAt: Date.now() - 10 * 86_400_000 })
      .where(eq(db.t.oauthGrants.name, 'made long ago'));
    ok(await setAccessTokenSettings(db, team.id, team.owner.id, { allowed: true, maxDays: '7' }));
    expect(await ping(older)).toBe(401);
    expect(await ping(fresh)).toBe(200);
    expect((await makeToken(alice, { days: '8' })).status).toBe(400);
    const off = ok(
      await setAccessTokenSettings(db, team.id, team.owner.id, { allowed: false, maxDays: '7' }),
    );
    expect(off.revoked).toBeGreaterThan(0);
    expect(await ping(fresh)).toBe(401);
    const refused = await makeToken(alice, {});
    expect(refused.status).toBe(403);
    expect(refused.html).toContain('turned off');
    // A plain member cannot change it; the change is in the audit trail.
    expect(
      (await setAccessTokenSettings(db, team.id, team.alice.id, { allowed: true, maxDays: '90' })).ok,
    ).toBe(false);
    const changed = (await auditOf(ts, team.id)).filter((e) => e.kind === 'team_settings_changed').at(-1);
    expect(changed?.detail).toMatchObject({ accessTokensAllowed: false, accessTokenMaxDays: 7 });
    ok(await setAccessTokenSettings(db, team.id, team.owner.id, { allowed: true, maxDays: '90' }));
  });
});
