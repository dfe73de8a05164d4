import { eq } from 'drizzle-orm';
import { getMembership } from '../../src/accounts/workspaces.js';
import type { Store } from '../../src/db/store/index.js';
import { createTeam } from '../../src/teams/teams.js';
import { makeUser } from './database.js';
import { ok } from './team-fixture.js';

/**
 * Steps shared by the team domain tests (tests/teams/team-*.test.ts, invites, member policy, apps,
 * audit trail): they call the src/teams functions on a database of their own, with no server.
 */

/** The member's role in the workspace, or null when they are not in it. */
export async function roleOf(db: Store, workspaceId: string, userId: string) {
  return (await getMembership(db, workspaceId, userId))?.role ?? null;
}

/** The kinds of the workspace's audit rows, in insertion order. */
export async function auditKinds(db: Store, workspaceId: string): Promise<string[]> {
  return (
    await db.orm
      .select({ kind: db.t.auditEvents.kind })
      .from(db.t.auditEvents)
      .where(eq(db.t.auditEvents.workspaceId, workspaceId))
  ).map((r) => r.kind);
}

/** A team named "Research Team" with an owner, an admin and a member. */
export async function teamOfThree(db: Store) {
  const owner = await makeUser(db, 'owner');
  const admin = await makeUser(db, 'admin');
  const member = await makeUser(db, 'member');
  const id = ok(await createTeam(db, owner.id, '  Research   Team '));
  const now = Date.now();
  await db.orm.insert(db.t.workspaceMembers).values([
    { workspaceId: id, userId: admin.id, role: 'admin', createdAt: now },
    { workspaceId: id, userId: member.id, role: 'member', createdAt: now },
  ]);
  return { id, owner, admin, member };
}
