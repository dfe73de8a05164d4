import { and, asc, eq, isNull, sql } from 'drizzle-orm';
import { defaultUpstreamUserId } from '../accounts/credentials.js';
import { getMembership, type WorkspaceRole } from '../accounts/workspaces.js';
import type { Db } from '../db/client.js';
import { consents, oauthGrants, users, workspaceMembers, workspaces } from '../db/schema/index.js';
import { revokeGrant } from '../oauth/grants.js';
import { parseScopes, type Scope } from '../oauth/scopes.js';
import { newId } from '../security/tokens.js';
import { recordTeamEvent } from './events.js';
import { deny, inTransaction, type Outcome } from './outcome.js';
import { mayChangeWebhook } from './webhook.js';

export const TEAM_NAME_MAX_LENGTH = 80;

export const ROLE_RANK: Record<WorkspaceRole, number> = { member: 0, admin: 1, owner: 2 };

export function isAdminRole(role: WorkspaceRole): boolean {
  return ROLE_RANK[role] >= ROLE_RANK.admin;
}

export interface TeamContext {
  workspaceId: string;
  name: string;
  kind: 'personal' | 'team';
  role: WorkspaceRole;
}

/** The actor's membership, or a refusal: 404 for non-members (nothing to learn), 403 for too low a role. */
export function actorIn(
  db: Db,
  workspaceId: string,
  actorId: string,
  needs: WorkspaceRole = 'member',
): TeamContext {
  const row = getMembership(db, workspaceId, actorId);
  if (!row) deny(404, 'There is no such workspace, or you are not a member of it.');
  if (ROLE_RANK[row.role] < ROLE_RANK[needs]) {
    deny(
      403,
      needs === 'owner'
        ? 'Only an owner of this workspace can do this.'
        : "Only the workspace's owners and admins can do this.",
    );
  }
  return { workspaceId: row.workspaceId, name: row.name, kind: row.kind, role: row.role };
}

function teamOnly(team: TeamContext): void {
  if (team.kind !== 'team') deny(400, 'A personal workspace has no other members; create a team instead.');
}

export function teamNameProblem(name: string): string | null {
  if (!name) return 'Enter a name for the team.';
  if (name.length > TEAM_NAME_MAX_LENGTH)
    return `A team name has at most ${TEAM_NAME_MAX_LENGTH} characters.`;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
  if (/[\u0000-\u001f\u007f]/.test(name)) return 'A team name cannot contain control characters.';
  return null;
}

export function normaliseTeamName(raw: string): string {
  return raw.trim().replace(/\s+/g, ' ');
}

/** A team workspace with the creator as its owner. */
export function createTeam(db: Db, actorId: string, rawName: string, now = Date.now()): Outcome<string> {
  const name = normaliseTeamName(rawName.slice(0, TEAM_NAME_MAX_LENGTH * 2));
  const problem = teamNameProblem(name);
  if (problem) return { ok: false, status: 400, message: problem, field: 'name' };
  const id = newId();
  return inTransaction(db, (tx) => {
    tx.insert(workspaces).values({ id, name, kind: 'team', createdAt: now, updatedAt: now }).run();
    tx.insert(workspaceMembers)
      .values({ workspaceId: id, userId: actorId, role: 'owner', createdAt: now })
      .run();
    recordTeamEvent(tx, { kind: 'team_created', workspaceId: id, actorId, detail: { name } }, now);
    return id;
  });
}

export function renameTeam(db: Db, workspaceId: string, actorId: string, rawName: string): Outcome {
  const name = normaliseTeamName(rawName.slice(0, TEAM_NAME_MAX_LENGTH * 2));
  const problem = teamNameProblem(name);
  if (problem) return { ok: false, status: 400, message: problem, field: 'name' };
  return inTransaction(db, (tx) => {
    const team = actorIn(tx, workspaceId, actorId, 'admin');
    teamOnly(team);
    tx.update(workspaces).set({ name, updatedAt: Date.now() }).where(eq(workspaces.id, workspaceId)).run();
    recordTeamEvent(tx, {
      kind: 'team_renamed',
      workspaceId,
      actorId,
      detail: { from: team.name, to: name },
    });
    return undefined;
  });
}

/**
 * Deletes the team and everything bound to it (members, invites, credential, grants and their tokens
 * by cascade). Owners only, and only when `confirmation` is the team's exact name. The audit trail
 * keeps its rows (they name ids, not foreign keys).
 */
export function deleteTeam(db: Db, workspaceId: string, actorId: string, confirmation: string): Outcome {
  return inTransaction(db, (tx) => {
    const team = actorIn(tx, workspaceId, actorId, 'owner');
    teamOnly(team);
    if (confirmation.trim() !== team.name) {
      deny(400, `Type the team's name, ${team.name}, exactly to confirm.`, 'confirm');
    }
    tx.delete(workspaces).where(eq(workspaces.id, workspaceId)).run();
    recordTeamEvent(tx, { kind: 'team_deleted', workspaceId, actorId, detail: { name: team.name } });
    return undefined;
  });
}

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

export function listMembers(db: Db, workspaceId: string): MemberView[] {
  return db
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
    )
    .all()
    .map((m) => ({
      ...m,
      upstreamUserId: m.upstreamUserId ?? defaultUpstreamUserId(m.userId),
      upstreamUserIdSet: m.upstreamUserId !== null,
      maxScopes: m.maxScopes === null ? null : parseScopes(m.maxScopes),
      canChangeWebhook: mayChangeWebhook(m.role, m.canChangeWebhook),
      canChangeWebhookSet: m.canChangeWebhook !== null,
    }));
}

export function targetIn(db: Db, workspaceId: string, userId: string) {
  const row = db
    .select({ role: workspaceMembers.role, email: users.email })
    .from(workspaceMembers)
    .innerJoin(users, eq(users.id, workspaceMembers.userId))
    .where(and(eq(workspaceMembers.workspaceId, workspaceId), eq(workspaceMembers.userId, userId)))
    .get();
  if (!row) deny(404, 'That person is not a member of this workspace.');
  return row;
}

function ownerCount(db: Db, workspaceId: string): number {
  return (
    db
      .select({ n: sql<number>`count(*)` })
      .from(workspaceMembers)
      .where(and(eq(workspaceMembers.workspaceId, workspaceId), eq(workspaceMembers.role, 'owner')))
      .get()?.n ?? 0
  );
}

/**
 * Owners manage everyone; admins manage plain members (and may make one an admin). Changing, demoting
 * or removing an admin takes an owner: otherwise an admin could demote another admin and then change
 * their limits, which only owners may (issue 14).
 */
export function mayManage(actor: WorkspaceRole, target: WorkspaceRole): boolean {
  return actor === 'owner' || (actor === 'admin' && target === 'member');
}

export function isWorkspaceRole(value: string): value is WorkspaceRole {
  return value === 'owner' || value === 'admin' || value === 'member';
}

export function changeRole(
  db: Db,
  workspaceId: string,
  actorId: string,
  targetId: string,
  newRole: string,
): Outcome<{ from: WorkspaceRole; to: WorkspaceRole }> {
  if (!isWorkspaceRole(newRole)) return { ok: false, status: 400, message: 'Choose owner, admin or member.' };
  return inTransaction(db, (tx) => {
    const team = actorIn(tx, workspaceId, actorId, 'admin');
    teamOnly(team);
    const target = targetIn(tx, workspaceId, targetId);
    if (!mayManage(team.role, target.role) || (newRole === 'owner' && team.role !== 'owner')) {
      deny(
        403,
        target.role === 'admin'
          ? 'Only an owner can change an admin’s role.'
          : 'Only an owner can make someone an owner or change an owner’s role.',
      );
    }
    if (target.role === newRole) return { from: target.role, to: newRole };
    if (target.role === 'owner' && ownerCount(tx, workspaceId) <= 1) {
      deny(409, 'A team needs at least one owner: make someone else an owner first.');
    }
    tx.update(workspaceMembers)
      .set({ role: newRole })
      .where(and(eq(workspaceMembers.workspaceId, workspaceId), eq(workspaceMembers.userId, targetId)))
      .run();
    recordTeamEvent(tx, {
      kind: 'member_role_changed',
      workspaceId,
      actorId,
      detail: { member: targetId, from: target.role, to: newRole },
    });
    return { from: target.role, to: newRole };
  });
}

/** Ends a user's membership: their grants in the workspace are revoked, remembered consents forgotten. */
function endMembership(tx: Db, workspaceId: string, userId: string, reason: string): number {
  tx.delete(workspaceMembers)
    .where(and(eq(workspaceMembers.workspaceId, workspaceId), eq(workspaceMembers.userId, userId)))
    .run();
  tx.delete(consents)
    .where(and(eq(consents.workspaceId, workspaceId), eq(consents.userId, userId)))
    .run();
  const live = tx
    .select({ id: oauthGrants.id })
    .from(oauthGrants)
    .where(
      and(
        eq(oauthGrants.workspaceId, workspaceId),
        eq(oauthGrants.userId, userId),
        isNull(oauthGrants.revokedAt),
      ),
    )
    .all();
  for (const grant of live) revokeGrant(tx, grant.id, reason);
  return live.length;
}

export function removeMember(
  db: Db,
  workspaceId: string,
  actorId: string,
  targetId: string,
): Outcome<{ email: string; grantsRevoked: number }> {
  return inTransaction(db, (tx) => {
    const team = actorIn(tx, workspaceId, actorId, 'admin');
    teamOnly(team);
    if (targetId === actorId) deny(400, 'To leave the team yourself, use “Leave team”.');
    const target = targetIn(tx, workspaceId, targetId);
    if (!mayManage(team.role, target.role)) {
      deny(403, `Only an owner can remove ${target.role === 'owner' ? 'an owner' : 'an admin'}.`);
    }
    if (target.role === 'owner' && ownerCount(tx, workspaceId) <= 1) {
      deny(409, 'A team needs at least one owner: it cannot lose its last one.');
    }
    const grantsRevoked = endMembership(tx, workspaceId, targetId, 'member_removed');
    recordTeamEvent(tx, {
      kind: 'member_removed',
      workspaceId,
      actorId,
      detail: { member: targetId, role: target.role, grantsRevoked },
    });
    return { email: target.email, grantsRevoked };
  });
}

export function leaveTeam(db: Db, workspaceId: string, actorId: string): Outcome {
  return inTransaction(db, (tx) => {
    const team = actorIn(tx, workspaceId, actorId, 'member');
    teamOnly(team);
    if (team.role === 'owner' && ownerCount(tx, workspaceId) <= 1) {
      deny(409, 'You are the last owner of this team: make someone else an owner first, or delete the team.');
    }
    const grantsRevoked = endMembership(tx, workspaceId, actorId, 'member_left');
    recordTeamEvent(tx, { kind: 'member_left', workspaceId, actorId, detail: { grantsRevoked } });
    return undefined;
  });
}
