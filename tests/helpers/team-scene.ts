import { saveUpstreamCredential } from '../../src/accounts/credentials.js';
import { createSession } from '../../src/accounts/sessions.js';
import { createUser } from '../../src/accounts/users.js';
import type { auditEvents } from '../../src/db/schema/index.js';
import type { SandboxServer } from '../../src/sandbox/server.js';
import { createAccessToken } from '../../src/teams/access-tokens.js';
import { acceptInvite, createInvite, revokeInvite } from '../../src/teams/invites.js';
import { setMemberPolicy } from '../../src/teams/member-policy.js';
import { changeRole } from '../../src/teams/members.js';
import { createTeam } from '../../src/teams/teams.js';
import { cookiePolicy } from '../../src/web/cookies.js';
import type { SignedInUser } from './oauth-http.js';
import { authorizeUrl, callbackParams, consent, pkce, registerClient, tokenRequest } from './oauth-http.js';
import type { TestServer } from './server.js';

/**
 * A team as an admin sees it after a few weeks, built through the domain functions and the real OAuth
 * endpoints, for the team pages' browser tests: an owner, an admin and two members (one with a long
 * email address, one read-only with a monthly cap), sandbox credentials, invite links with notes, two
 * connected apps (one with a permission its member's settings now block), and audit rows over the
 * last two weeks. Fixed names, so the reviewed screenshots do not change from run to run.
 */
export interface TeamScene {
  teamId: string;
  personalId: string;
  owner: ScenePerson;
  admin: ScenePerson;
  long: ScenePerson;
  mia: ScenePerson;
  /** An open invite link (its token), for the invitation page. */
  inviteToken: string;
}

export interface ScenePerson {
  id: string;
  email: string;
  /** The session cookie's name=value for a browser context or fetch. */
  cookie: string;
  session: string;
}

export const SCENE_PASSWORD = 'violet tractor umbrella';
const DAY_MS = 24 * 3600 * 1000;

function ok<T>(outcome: { ok: true; value: T } | { ok: false; message: string }): T {
  if (!outcome.ok) throw new Error(outcome.message);
  return outcome.value;
}

async function person(server: TestServer, email: string): Promise<ScenePerson & { personalId: string }> {
  const created = await createUser(server.db, { email, password: SCENE_PASSWORD });
  if (!created.ok) throw new Error(created.reason);
  const session = await createSession(server.db, created.user.id, 'test');
  return {
    id: created.user.id,
    email,
    session,
    cookie: `${cookiePolicy(server.config).sessionName}=${session}`,
    personalId: created.personalWorkspaceId,
  };
}

/** Registration, consent in the given workspace, token exchange: a connected app named `name`. */
async function connectApp(
  server: TestServer,
  p: ScenePerson,
  workspaceId: string,
  name: string,
  scope: string,
) {
  const client = await registerClient(server, { client_name: name });
  const { verifier, challenge } = pkce();
  const user: SignedInUser = { userId: p.id, workspaceId, email: p.email, cookie: p.cookie };
  const { decision } = await consent(
    server,
    user,
    authorizeUrl(server, { clientId: client.client_id, challenge, scope }),
    {
      workspace: workspaceId,
    },
  );
  const code = decision ? callbackParams(decision).get('code') : null;
  if (!code) throw new Error(`no code for ${name}`);
  const tokens = await tokenRequest(server, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: 'http://localhost:3000/callback',
    code_verifier: verifier,
    client_id: client.client_id,
    resource: server.config.resourceUrl,
  });
  if (tokens.status !== 200) throw new Error(`token exchange failed for ${name}`);
}

export async function buildTeamScene(server: TestServer, sandbox: SandboxServer): Promise<TeamScene> {
  const { db } = server;
  const owner = await person(server, 'olivia.owner@example.com');
  const admin = await person(server, 'adrian.admin@example.com');
  const long = await person(
    server,
    'maximilian.featherstonehaugh-wolfeschlegel@research-department.example.com',
  );
  const mia = await person(server, 'mia.member@example.com');
  const teamId = ok(await createTeam(db, owner.id, 'Northwind Research'));
  const res = await fetch(`${sandbox.searchUrl}/__sandbox/credentials`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ credits: 1000, producer: true }),
  });
  const { token } = (await res.json()) as { token: string };
  await saveUpstreamCredential(db, server.secrets, {
    workspaceId: teamId,
    linkedBy: owner.id,
    token,
    upstreamUserId: 'northwind-olivia',
    verifiedAt: Date.now(),
  });
  // Invites a second apart from a minute ago, so the list (newest first) has one order on every run.
  const t0 = Date.now() - 60_000;
  const member = { role: 'member', maxUses: '1', expiresInDays: '7' };
  for (const [i, p] of [admin, long, mia].entries()) {
    const invite = ok(await createInvite(db, teamId, owner.id, member, t0 + i * 1000));
    ok(await acceptInvite(db, invite.token, teamId, p.id));
  }
  ok(await changeRole(db, teamId, owner.id, admin.id, 'admin'));

  // Apps first: Mia's app was allowed to start searches before her settings became read-only.
  await connectApp(server, owner, teamId, 'Claude', 'searches:read searches:write agent:read agent:write');
  await connectApp(server, mia, teamId, 'Cursor', 'searches:read searches:write');
  ok(
    await setMemberPolicy(db, teamId, owner.id, mia.id, {
      upstreamUserId: 'mia-analyst',
      maxScopes: [],
      monthlyWriteCap: '10',
      preset: 'read-only',
    }),
  );
  ok(
    await setMemberPolicy(db, teamId, owner.id, long.id, {
      upstreamUserId: '',
      maxScopes: [
        'searches:read',
        'searches:write',
        'agent:read',
        'agent:write',
        'account:read',
        'account:write',
      ],
      monthlyWriteCap: '5',
    }),
  );

  const open = ok(
    await createInvite(
      db,
      teamId,
      owner.id,
      {
        role: 'member',
        maxUses: '1',
        expiresInDays: '7',
        note: 'Dana Whitfield (sales)',
      },
      t0 + 10_000,
    ),
  );
  ok(
    await createInvite(
      db,
      teamId,
      admin.id,
      {
        role: 'admin',
        maxUses: '',
        expiresInDays: '14',
        note: 'Contractors',
      },
      t0 + 11_000,
    ),
  );
  const withdrawn = ok(await createInvite(db, teamId, owner.id, member, t0 + 12_000));
  ok(await revokeInvite(db, teamId, owner.id, withdrawn.id));

  // Tool calls over the last two weeks (reads, and credit-spending calls today: this month's counts).
  const now = Date.now();
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  // A second into the day at the earliest: the calls below sit up to 22 ms before spentAt, and must
  // stay in today's bar even when the scene is built in the first minute after midnight UTC.
  const spentAt = Math.max(today + 1_000, now - 60_000);
  const calls: Array<typeof auditEvents.$inferInsert> = [];
  const call = (at: number, userId: string, tool: string, status = 'ok', detail: string | null = null) =>
    calls.push({ at, kind: 'tool_call', workspaceId: teamId, userId, tool, status, durationMs: 180, detail });
  for (let d = 13; d >= 1; d--) {
    for (let i = 0; i < (d * 7) % 5; i++)
      call(today - d * DAY_MS + 9 * 3600_000 + i, owner.id, 'get_keyword_search');
    for (let i = 0; i < (d * 3) % 4; i++)
      call(today - d * DAY_MS + 10 * 3600_000 + i, mia.id, 'get_agent_run');
    if (d % 3 === 0) call(today - d * DAY_MS + 11 * 3600_000, long.id, 'list_agent_runs');
  }
  for (let i = 0; i < 5; i++) call(spentAt - i, long.id, 'submit_keyword_search');
  for (let i = 0; i < 3; i++) call(spentAt - 10 - i, owner.id, 'start_agent_run');
  call(
    spentAt - 20,
    mia.id,
    'submit_keyword_search',
    'refused',
    JSON.stringify({ reason: 'scope_ceiling', scope: 'searches:write' }),
  );
  await db.orm.insert(db.t.auditEvents).values(calls);

  // An access token a member made for a script, listed for the team's admins beside the apps.
  ok(
    await createAccessToken(
      db,
      mia.id,
      {
        workspaceId: teamId,
        name: 'Nightly report job',
        days: '30',
        scopes: ['searches:read', 'agent:read'],
        toolsets: 'searches posts',
        readOnly: true,
      },
      server.config.resourceUrl,
    ),
  );

  return { teamId, personalId: owner.personalId, owner, admin, long, mia, inviteToken: open.token };
}
