import { asc, eq } from 'drizzle-orm';
import { defaultUpstreamUserId, saveUpstreamCredential } from '../../src/accounts/credentials.js';
import { createUser } from '../../src/accounts/users.js';
import { acceptInvite, createInvite } from '../../src/teams/invites.js';
import { changeRole } from '../../src/teams/members.js';
import { createTeam } from '../../src/teams/teams.js';
import { grantThroughCode } from './grants.js';
import { type AnyClient, connectV2 } from './harness.js';
import type { TeamServer } from './team-server.js';

export function ok<T>(outcome: { ok: true; value: T } | { ok: false; message: string }): T {
  if (!outcome.ok) throw new Error(outcome.message);
  return outcome.value;
}

let counter = 0;
export const PASSWORD = 'correct horse battery staple';

/** A signed-up person (no browser: these tests drive /mcp). */
export async function makePerson(ts: TeamServer, label: string) {
  counter += 1;
  const created = await createUser(ts.server.db, {
    email: `${label}-${counter}-${process.pid}@example.com`,
    password: PASSWORD,
  });
  if (!created.ok) throw new Error(created.reason);
  return { id: created.user.id, email: created.user.email, personalId: created.personalWorkspaceId };
}

/** An access token for the user in the workspace, with every scope, through the token endpoint's functions. */
export async function accessTokenFor(ts: TeamServer, userId: string, workspaceId: string): Promise<string> {
  return (await grantThroughCode(ts.server, { userId, workspaceId, clientId: 'team-test-client' }))
    .access_token;
}

export interface TeamPerson {
  id: string;
  email: string;
  /** What X-SERVICE-USER-ID carries for them (the default derived from the account). */
  upstreamUserId: string;
  accessToken: string;
  client: AnyClient;
}

export interface Team {
  id: string;
  /** The team's upstream credential (a sandbox token). */
  token: string;
  owner: TeamPerson;
  admin: TeamPerson;
  alice: TeamPerson;
  bob: TeamPerson;
  close(): Promise<void>;
}

/**
 * A team with sandbox credentials: an owner (who linked them, as `team-owner`), an admin and two plain
 * members (Alice, Bob), each with a connected v2 MCP client acting as their own upstream user id.
 */
export async function makeTeam(ts: TeamServer, name = 'Policy Team'): Promise<Team> {
  const { db, secrets } = ts.server;
  const owner = await makePerson(ts, 'owner');
  const id = ok(await createTeam(db, owner.id, name));
  const token = (await ts.control('POST', '/credentials', { credits: 1000, producer: true })).token as string;
  await saveUpstreamCredential(db, secrets, {
    workspaceId: id,
    linkedBy: owner.id,
    token,
    upstreamUserId: 'team-owner',
    verifiedAt: Date.now(),
  });
  const join = async (label: string, role: 'admin' | 'member') => {
    const p = await makePerson(ts, label);
    const invite = ok(
      await createInvite(db, id, owner.id, { role: 'member', maxUses: '1', expiresInDays: '1' }),
    );
    ok(await acceptInvite(db, invite.token, id, p.id));
    if (role === 'admin') ok(await changeRole(db, id, owner.id, p.id, 'admin'));
    return p;
  };
  const people = [
    owner,
    await join('admin', 'admin'),
    await join('alice', 'member'),
    await join('bob', 'member'),
  ];
  const connected: TeamPerson[] = [];
  for (const p of people) {
    const accessToken = await accessTokenFor(ts, p.id, id);
    connected.push({
      id: p.id,
      email: p.email,
      // Linking the credential made its user id the linker's own (accounts/credentials.ts).
      upstreamUserId: p === owner ? 'team-owner' : defaultUpstreamUserId(p.id),
      accessToken,
      client: await connectV2(ts.mcpUrl, accessToken),
    });
  }
  const [o, a, al, b] = connected as [TeamPerson, TeamPerson, TeamPerson, TeamPerson];
  return {
    id,
    token,
    owner: o,
    admin: a,
    alice: al,
    bob: b,
    async close() {
      await Promise.all(connected.map((p) => p.client.close().catch(() => {})));
    },
  };
}

/** The audit rows of a workspace, oldest first, with their detail parsed. */
export async function auditOf(ts: TeamServer, workspaceId: string) {
  const { db } = ts.server;
  const rows = await db.orm
    .select()
    .from(db.t.auditEvents)
    .where(eq(db.t.auditEvents.workspaceId, workspaceId))
    .orderBy(asc(db.t.auditEvents.id));
  return rows.map((r) => ({
    ...r,
    detail: r.detail ? (JSON.parse(r.detail) as Record<string, unknown>) : null,
  }));
}
