import { and, asc, count, eq, isNull, sql } from 'drizzle-orm';
import { defaultUpstreamUserId } from '../accounts/credentials.js';
import type { WorkspaceRole } from '../accounts/workspaces.js';
import { first, memberSubject, type Store } from '../db/store/index.js';
import { revokeGrant } from '../oauth/grants.js';
import { parseScopes, type Scope } from '../oauth/scopes.js';
import { recordTeamEvent } from './events.js';
import { deny, inTransaction, type Outcome } from './outcome.js';
import { actorIn, teamOnly } from './teams.js';
import { mayChangeWebhook } from './webhook.js';

/**
 * A team's members: who they are and their settings as the pages show them, who may manage whom,
 * role changes, and the end of a membership (removed or left), which revokes the member's apps.
 */

export interface MemberView {
  userId: string;
  email: string;
  role: WorkspaceRole;
  /** What X-SERVICE-USER-ID carries for them. */
  upstreamUserId: string;
  /** False when upstreamUserId is the default derived from the account. */
  upstreamUserIdSet: boolean;
  maxScopes: Scope[] | null;
  monthlyWriteCap: number | null;
  /** May change the team webhook: their switch, or their role's default when unset. */
  canChangeWebhook: boolean;
  /** False when canChangeWebhook is the role's default. */
  canChangeWebhookSet: boolean;
  joinedAt: number;
}

export async function listMembers(db: Store, workspaceId: string): Promise<MemberView[]> {
  const { workspaceMembers, users } = db.t;
  const rows = await db.orm
    .select({
      userId: workspaceMembers.userId,
      email: users.email,
      role: workspaceMembers.role,
      upstreamUserId: workspaceMembers.upstreamUserId,
      maxScopes: workspaceMembers.maxScopes,
      monthlyWriteCap: workspaceMembers.monthlyWriteCap,
      canChangeWebhook: workspaceMembers.canChangeWebhook,
      joinedAt: workspaceMembers.createdAt,
    })
    .from(workspaceMembers)
    .innerJoin(users, eq(users.id, workspaceMembers.userId))
    .where(eq(workspaceMembers.workspaceId, workspaceId))
    .orderBy(
      sql`case ${workspaceMembers.role} when 'owner' then 0 when 'admin' then 1 else 2 end`,
      asc(users.email),
    );
  return rows.map((m) => ({
    ...m,
    upstreamUserId: m.upstreamUserId ?? defaultUpstreamUserId(m.userId),
    upstreamUserIdSet: m.upstreamUserId !== null,
    maxScopes: m.maxScopes === null ? null : parseScopes(m.maxScopes),
    canChangeWebhook: mayChangeWebhook(m.role, m.canChangeWebhook),
    canChangeWebhookSet: m.canChangeWebhook !== null,
  }));
}

export async function targetIn(db: Store, workspaceId: string, userId: string) {
  const { workspaceMembers, users } = db.t;
  const row = await first(
    db.orm
      .select({ role: workspaceMembers.role, email: users.email })
      .from(workspaceMembers)
      .innerJoin(users, eq(users.id, workspaceMembers.userId))
      .where(and(eq(workspaceMembers.workspaceId, workspaceId), eq(workspaceMembers.userId, userId))),
  );
  if (!row) deny(404, 'That person is not a member of this workspace.');
  return row;
}

async function ownerCount(db: Store, workspaceId: string): Promise<number> {
  const { workspaceMembers } = db.t;
  const row = await first(
    db.orm
      .select({ n: count() })
      .from(workspaceMembers)
      .where(and(eq(workspaceMembers.workspaceId, workspaceId), eq(workspaceMembers.role, 'owner'))),
  );
  return row?.n ?? 0;
}

/**
 * Owners manage everyone; admins manage plain members (and may make one an admin). Changing, demoting
 * or removing an admin takes an owner: otherwise an admin could demote another admin and then change
 * their limits, which only owners may.
 */
export function mayManage(actor: WorkspaceRole, target: WorkspaceRole): boolean {
  return actor === 'owner' || (actor === 'admin' && target === 'member');
}

export function isWorkspaceRole(value: string): value is WorkspaceRole {
  return value === 'owner' || value === 'admin' || value === 'member';
}

export async function changeRole(
  db: Store,
  workspaceId: string,
  actorId: string,
  targetId: string,
  newRole: string,
): Promise<Outcome<{ from: WorkspaceRole; to: WorkspaceRole }>> {
  if (!isWorkspaceRole(newRole)) return { ok: false, status: 400, message: 'Choose owner, admin or member.' };
  return inTransaction(db, async (tx) => {
    const { workspaceMembers } = tx.t;
    const team = await actorIn(tx, workspaceId, actorId, 'admin');
    teamOnly(team);
    const target = await targetIn(tx, workspaceId, targetId);
    if (!mayManage(team.role, target.role) || (newRole === 'owner' && team.role !== 'owner')) {
      deny(
        403,
        target.role === 'admin'
          ? 'Only an owner can change an admin’s role.'
          : 'Only an owner can make someone an owner or change an owner’s role.',
      );
    }
    if (target.role === newRole) return { from: target.role, to: newRole };
    if (target.role === 'owner' && (await ownerCount(tx, workspaceId)) <= 1) {
      deny(409, 'A team needs at least one owner: make someone else an owner first.');
    }
    await tx.orm
      .update(workspaceMembers)
      .set({ role: newRole })
      .where(and(eq(workspaceMembers.workspaceId, workspaceId), eq(workspaceMembers.userId, targetId)));
    await tx.invalidate(memberSubject(workspaceId, targetId));
    await recordTeamEvent(tx, {
      kind: 'member_role_changed',
      workspaceId,
      actorId,
      detail: { member: targetId, from: target.role, to: newRole },
    });
    return { from: target.role, to: newRole };
  });
}

/** Ends a user's membership: their grants in the workspace are revoked, remembered consents forgotten. */
async function endMembership(
  tx: Store,
  workspaceId: string,
  userId: string,
  reason: string,
): Promise<number> {
  const { workspaceMembers, consents, oauthGrants } = tx.t;
  await tx.orm
    .delete(workspaceMembers)
    .where(and(eq(workspaceMembers.workspaceId, workspaceId), eq(workspaceMembers.userId, userId)));
  await tx.invalidate(memberSubject(workspaceId, userId));
  await tx.orm
    .delete(consents)
    .where(and(eq(consents.workspaceId, workspaceId), eq(consents.userId, userId)));
  const live = await tx.orm
    .select({ id: oauthGrants.id })
    .from(oauthGrants)
    .where(
      and(
        eq(oauthGrants.workspaceId, workspaceId),
        eq(oauthGrants.userId, userId),
        isNull(oauthGrants.revokedAt),
      ),
    );
  for (const grant of live) await revokeGrant(tx, grant.id, reason);
  return live.length;
}

export function removeMember(
  db: Store,
  workspaceId: string,
  actorId: string,
  targetId: string,
): Promise<Outcome<{ email: string; grantsRevoked: number }>> {
  return inTransaction(db, async (tx) => {
    const team = await actorIn(tx, workspaceId, actorId, 'admin');
    teamOnly(team);
    if (targetId === actorId) deny(400, 'To leave the team yourself, use “Leave team”.');
    const target = await targetIn(tx, workspaceId, targetId);
    if (!mayManage(team.role, target.role)) {
      deny(403, `Only an owner can remove ${target.role === 'owner' ? 'an owner' : 'an admin'}.`);
    }
    if (target.role === 'owner' && (await ownerCount(tx, workspaceId)) <= 1) {
      deny(409, 'A team needs at least one owner: it cannot lose its last one.');
    }
    const grantsRevoked = await endMembership(tx, workspaceId, targetId, 'member_removed');
    await recordTeamEvent(tx, {
      kind: 'member_removed',
      workspaceId,
      actorId,
      detail: { member: targetId, role: target.role, grantsRevoked },
    });
    return { email: target.email, grantsRevoked };
  });
}

export function leaveTeam(db: Store, workspaceId: string, actorId: string): Promise<Outcome> {
  return inTransaction(db, async (tx) => {
    const team = await actorIn(tx, workspaceId, actorId, 'member');
    teamOnly(team);
    if (team.role === 'owner' && (await ownerCount(tx, workspaceId)) <= 1) {
      deny(409, 'You are the last owner of this team: make someone else an owner first, or delete the team.');
    }
    const grantsRevoked = await endMembership(tx, workspaceId, actorId, 'member_left');
    await recordTeamEvent(tx, { kind: 'member_left', workspaceId, actorId, detail: { grantsRevoked } });
    return undefined;
  });
}
