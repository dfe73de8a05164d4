import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  defaultUpstreamUserId,
  removeUpstreamCredential,
  saveUpstreamCredential,
} from '../../src/accounts/credentials.js';
import { createUser } from '../../src/accounts/users.js';
import { ALL_TOOLS, CREDIT_SPENDING_TOOLS } from '../../src/mcp/tools/index.js';
import { SCOPES } from '../../src/oauth/scopes.js';
import { acceptInvite, createInvite } from '../../src/teams/invites.js';
import { setMemberPolicy } from '../../src/teams/member-policy.js';
import { removeMember } from '../../src/teams/members.js';
import { createTeam } from '../../src/teams/teams.js';
import { writesThisMonth } from '../../src/teams/write-cap.js';
import { grantThroughCode } from '../helpers/grants.js';
import { type AnyClient, connectV2, textOf } from '../helpers/harness.js';
import { type Json, startTeamServer, type TeamServer } from '../helpers/team-server.js';

/**
 * Team policy on the tool call path, with the real catalog, bearer check and sandbox: the member's own
 * upstream user id, the monthly write cap (refused before any upstream call), ids of another
 * workspace's runs, an unlinked credential, a lowered ceiling and removal.
 */
let ts: TeamServer;
let teamId: string;
let teamToken: string;
let admin: { id: string };
let member: { id: string };
let outsider: { id: string; workspaceId: string; token: string };
let client: AnyClient;
let accessToken: string;

async function user(label: string) {
  const created = await createUser(ts.server.db, {
    email: `${label}-${process.pid}-${Date.now()}@example.com`,
    password: 'correct horse battery staple',
  });
  if (!created.ok) throw new Error(created.reason);
  return { id: created.user.id, workspaceId: created.personalWorkspaceId };
}

async function grant(userId: string, workspaceId: string) {
  return (await grantThroughCode(ts.server, { userId, workspaceId, clientId: 'team-test-client' }))
    .access_token;
}

function ok<T>(outcome: { ok: true; value: T } | { ok: false; message: string }): T {
  if (!outcome.ok) throw new Error(outcome.message);
  return outcome.value;
}

/** A raw tools/call, to see the HTTP status the bearer and scope checks answer with. */
function rawCall(token: string, name: string, args: Record<string, unknown> = {}) {
  return fetch(ts.mcpUrl, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
  });
}

const SEARCH = { query: 'heat pumps', platforms: ['reddit'], max_post: 10 };

/** The team credential's credits as the sandbox counts them. */
async function creditsLeft(): Promise<number> {
  return (await ts.control('GET', `/credentials/${encodeURIComponent(teamToken)}`)).credits as number;
}

/** A valid call of every tool that writes upstream: on the member's own run, or ids that exist nowhere. */
const NO_SCHEDULE = '00000000-0000-4000-8000-000000000000';
const writeCalls = (runId: string): Record<string, Record<string, unknown>> => ({
  submit_keyword_search: SEARCH,
  submit_user_search: { query: 'someone', platform: 'twitter' },
  submit_expert_search: { query: 'heat pump engineers' },
  start_agent_run: { question: 'What about heat pumps?' },
  cancel_agent_run: { run_id: runId },
  rerun_agent_run: { run_id: runId },
  update_agent_run: { run_id: runId, pinned: true },
  delete_agent_run: { run_id: runId },
  create_agent_schedule: {
    name: 'Weekly',
    question: 'What changed?',
    recurrence_type: 'daily',
    recurrence_time: '09:00',
    recurrence_timezone: 'UTC',
    starts_at: '2030-01-01T09:00:00Z',
  },
  update_agent_schedule: { schedule_id: NO_SCHEDULE, name: 'Renamed' },
  pause_agent_schedule: { schedule_id: NO_SCHEDULE },
  resume_agent_schedule: { schedule_id: NO_SCHEDULE },
  delete_agent_schedule: { schedule_id: NO_SCHEDULE },
  update_integration_setup: { return_url: 'https://hooks.example.com/search-done' },
});

beforeAll(async () => {
  ts = await startTeamServer();
  const { db, secrets } = ts.server;
  admin = await user('admin');
  member = await user('member');
  const o = await user('outsider');
  teamId = ok(await createTeam(db, admin.id, 'Policy Team'));
  teamToken = (await ts.control('POST', '/credentials', { credits: 1000, producer: true })).token;
  await saveUpstreamCredential(db, secrets, {
    workspaceId: teamId,
    linkedBy: admin.id,
    token: teamToken,
    upstreamUserId: 'team-admin',
    verifiedAt: Date.now(),
  });
  const invite = ok(
    await createInvite(db, teamId, admin.id, { role: 'member', maxUses: '1', expiresInDays: '1' }),
  );
  ok(await acceptInvite(db, invite.token, teamId, member.id));
  const outsiderToken = (await ts.control('POST', '/credentials', { credits: 1000 })).token;
  await saveUpstreamCredential(db, secrets, {
    workspaceId: o.workspaceId,
    linkedBy: o.id,
    token: outsiderToken,
    upstreamUserId: 'outsider',
    verifiedAt: Date.now(),
  });
  outsider = { ...o, token: outsiderToken };
  accessToken = await grant(member.id, teamId);
  client = await connectV2(ts.mcpUrl, accessToken);
});

afterAll(async () => {
  await client?.close();
  await ts?.close();
});

describe('a team member’s tool calls', () => {
  it('reach the sandbox with the team token and the member’s own default user id', async () => {
    const result = await client.callTool({ name: 'get_keyword_searches', arguments: {} });
    expect(result.isError).toBeFalsy();
    const log = await ts.requests(teamToken);
    expect(log.length).toBeGreaterThan(0);
    expect(log.at(-1)?.user_id).toBe(defaultUpstreamUserId(member.id));
    expect(log.at(-1)?.user_id).not.toBe('team-admin');
  });

  it('carry the user id an admin sets, from the next call', async () => {
    ok(
      await setMemberPolicy(ts.server.db, teamId, admin.id, member.id, {
        upstreamUserId: 'analyst-42',
        maxScopes: [...SCOPES],
        monthlyWriteCap: '',
      }),
    );
    await client.callTool({ name: 'get_keyword_searches', arguments: {} });
    expect((await ts.requests(teamToken)).at(-1)?.user_id).toBe('analyst-42');
  });

  it('stop at the monthly write cap before any upstream call, with a sentence', async () => {
    const { db } = ts.server;
    const first = await client.callTool({ name: 'submit_keyword_search', arguments: SEARCH });
    expect(first.isError).toBeFalsy();
    const used = await writesThisMonth(db, teamId, member.id, CREDIT_SPENDING_TOOLS);
    expect(used).toBeGreaterThanOrEqual(1);
    ok(
      await setMemberPolicy(db, teamId, admin.id, member.id, {
        upstreamUserId: 'analyst-42',
        maxScopes: [...SCOPES],
        monthlyWriteCap: String(used),
      }),
    );
    const before = (await ts.requests(teamToken)).length;
    const capped = await client.callTool({
      name: 'start_agent_run',
      arguments: { question: 'What do people say about heat pumps?' },
    });
    expect(capped.isError).toBe(true);
    expect(textOf(capped)).toMatch(
      /^Monthly limit reached: a workspace admin allows you \d+ credit-spending calls? per month/,
    );
    expect(textOf(capped)).toContain('start_agent_run was not sent upstream');
    expect((await ts.requests(teamToken)).length).toBe(before);
    const row = (
      await db.orm
        .select()
        .from(db.t.auditEvents)
        .where(and(eq(db.t.auditEvents.userId, member.id), eq(db.t.auditEvents.tool, 'start_agent_run')))
    ).at(-1);
    expect(row?.status).toBe('refused');
    // Reads still go through; raising the cap lets writes through again.
    expect((await client.callTool({ name: 'get_keyword_searches', arguments: {} })).isError).toBeFalsy();
    ok(
      await setMemberPolicy(db, teamId, admin.id, member.id, {
        upstreamUserId: 'analyst-42',
        maxScopes: [...SCOPES],
        monthlyWriteCap: '',
      }),
    );
    expect((await client.callTool({ name: 'submit_keyword_search', arguments: SEARCH })).isError).toBeFalsy();
  });

  it('the write cap knows every tool whose definition says it spends credits, and no other', async () => {
    const { db } = ts.server;
    // A run of the member's own, so the ownership rule lets its changes through to the cap.
    const mine = await client.callTool({ name: 'start_agent_run', arguments: { question: 'Mine?' } });
    const calls = writeCalls((mine.structuredContent as Json).run_id as string);
    ok(
      await setMemberPolicy(db, teamId, admin.id, member.id, {
        upstreamUserId: 'analyst-42',
        maxScopes: [...SCOPES],
        monthlyWriteCap: '0',
      }),
    );
    try {
      for (const tool of ALL_TOOLS.filter((t) => t.scope.endsWith(':write'))) {
        const args = calls[tool.name];
        // A new tool that writes upstream must be called here: say how, and whether it spends.
        expect(args, `no call for ${tool.name} in writeCalls`).toBeDefined();
        const before = (await ts.requests(teamToken)).length;
        const credits = await creditsLeft();
        const result = await client.callTool({ name: tool.name, arguments: args });
        const capped = /^Monthly limit reached/.test(textOf(result));
        expect(capped, tool.name).toBe(tool.spendsCredits);
        // Refused before anything but the ownership rule's reads reached upstream.
        if (capped)
          expect(
            (await ts.requests(teamToken)).slice(before).filter((r: Json) => r.method !== 'GET'),
            tool.name,
          ).toEqual([]);
        // A tool that says it spends nothing went upstream and spent nothing there.
        else expect(await creditsLeft(), tool.name).toBe(credits);
      }
    } finally {
      ok(
        await setMemberPolicy(db, teamId, admin.id, member.id, {
          upstreamUserId: 'analyst-42',
          maxScopes: [...SCOPES],
          monthlyWriteCap: '',
        }),
      );
    }
  });

  it('cannot reach another workspace’s run: upstream answers 404 since runs belong to the credential', async () => {
    const outsiderClient = await connectV2(ts.mcpUrl, await grant(outsider.id, outsider.workspaceId));
    const started = await outsiderClient.callTool({
      name: 'start_agent_run',
      arguments: { question: 'Outsider question?' },
    });
    await outsiderClient.close();
    expect(started.isError).toBeFalsy();
    const runId = (started.structuredContent as Json).run_id as string;
    expect(runId).toBeTruthy();
    const result = await client.callTool({ name: 'get_agent_run', arguments: { run_id: runId } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/404/);
    const last = (await ts.requests(teamToken)).at(-1);
    expect(last?.status).toBe(404);
    expect(last?.path).toContain(runId);
  });

  it('are limited by a lowered ceiling from the next call: tools/list shrinks, a write call gets a tool error (200, never a 403 no re-authorization can win)', async () => {
    const { db } = ts.server;
    ok(
      await setMemberPolicy(db, teamId, admin.id, member.id, {
        upstreamUserId: 'analyst-42',
        maxScopes: ['searches:read', 'agent:read', 'account:read'],
        monthlyWriteCap: '',
      }),
    );
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('get_keyword_searches');
    expect(names).not.toContain('submit_keyword_search');
    const res = await rawCall(accessToken, 'submit_keyword_search', SEARCH);
    expect(res.status).toBe(200);
    expect(res.headers.get('www-authenticate')).toBeNull();
    const refused = await client.callTool({ name: 'submit_keyword_search', arguments: SEARCH });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/Start new keyword, user and expert searches/);
    expect(textOf(refused)).toMatch(/A team owner or admin can grant it/);
    ok(
      await setMemberPolicy(db, teamId, admin.id, member.id, {
        upstreamUserId: 'analyst-42',
        maxScopes: [...SCOPES],
        monthlyWriteCap: '',
      }),
    );
  });

  it('get a clear tool error, and no upstream call, once the credential is unlinked', async () => {
    const { db, secrets } = ts.server;
    const before = (await ts.requests(teamToken)).length;
    await removeUpstreamCredential(db, teamId, admin.id);
    const result = await client.callTool({ name: 'get_keyword_searches', arguments: {} });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/No upstream API credentials are linked to this workspace/);
    expect((await ts.requests(teamToken)).length).toBe(before);
    await saveUpstreamCredential(db, secrets, {
      workspaceId: teamId,
      linkedBy: admin.id,
      token: teamToken,
      upstreamUserId: 'team-admin',
      verifiedAt: Date.now(),
    });
  });

  it('are refused with 401 once the member is removed', async () => {
    expect((await rawCall(accessToken, 'get_keyword_searches')).status).not.toBe(401);
    ok(await removeMember(ts.server.db, teamId, admin.id, member.id));
    const res = await rawCall(accessToken, 'get_keyword_searches');
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/invalid_token/);
  });
});
