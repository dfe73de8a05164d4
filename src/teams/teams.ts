import { eq } from 'drizzle-orm';
import { getMembership, type WorkspaceRole } from '../accounts/workspaces.js';
import { type Store, workspaceSubject } from '../db/store/index.js';
import { newId } from '../security/tokens.js';
import { recordTeamEvent } from './events.js';
import { deny, inTransaction, lockWorkspace, type Outcome } from './outcome.js';

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

/**
 * The actor's membership, or a refusal: 404 for non-members (nothing to learn), 403 for too low a role.
 * Run inside the operation's transaction: it first locks the workspace row (lockWorkspace), so the
 * operation's checks and writes are not interleaved with another's on the same team.
 */
export async function actorIn(
  tx: Store,
  workspaceId: string,
  actorId: string,
  needs: WorkspaceRole = 'member',
): Promise<TeamContext> {
  await lockWorkspace(tx, workspaceId);
  const row = await getMembership(tx, workspaceId, actorId);
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

/** Refuses what only a team can do (a personal workspace has one member). */
export function teamOnly(team: TeamContext): void {
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
export async function createTeam(
  db: Store,
  actorId: string,
  rawName: string,
  now = Date.now(),
): Promise<Outcome<string>> {
  const name = normaliseTeamName(rawName.slice(0, TEAM_NAME_MAX_LENGTH * 2));
  const problem = teamNameProblem(name);
  if (problem) return { ok: false, status: 400, message: problem, field: 'name' };
  const id = newId();
  return inTransaction(db, async (tx) => {
    const { workspaces, workspaceMembers } = tx.t;
    await tx.orm.insert(workspaces).values({ id, name, kind: 'team', createdAt: now, updatedAt: now });
    await tx.orm
      .insert(workspaceMembers)
      .values({ workspaceId: id, userId: actorId, role: 'owner', createdAt: now });
    await recordTeamEvent(tx, { kind: 'team_created', workspaceId: id, actorId, detail: { name } }, now);
    return id;
  });
}

export async function renameTeam(
  db: Store,
  workspaceId: string,
  actorId: string,
  rawName: string,
): Promise<Outcome> {
  const name = normaliseTeamName(rawName.slice(0, TEAM_NAME_MAX_LENGTH * 2));
  const problem = teamNameProblem(name);
  if (problem) return { ok: false, status: 400, message: problem, field: 'name' };
  return inTransaction(db, async (tx) => {
    const { workspaces } = tx.t;
    const team = await actorIn(tx, workspaceId, actorId, 'admin');
    teamOnly(team);
    await tx.orm
      .update(workspaces)
      .set({ name, updatedAt: Date.now() })
      .where(eq(workspaces.id, workspaceId));
    await recordTeamEvent(tx, {
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
export function deleteTeam(
  db: Store,
  workspaceId: string,
  actorId: string,
  confirmation: string,
): Promise<Outcome> {
  return inTransaction(db, async (tx) => {
    const { workspaces } = tx.t;
    const team = await actorIn(tx, workspaceId, actorId, 'owner');
    teamOnly(team);
    if (confirmation.trim() !== team.name) {
      deny(400, `Type the team's name, ${team.name}, exactly to confirm.`, 'confirm');
    }
    await tx.orm.delete(workspaces).where(eq(workspaces.id, workspaceId));
    await tx.invalidate(workspaceSubject(workspaceId));
    await recordTeamEvent(tx, { kind: 'team_deleted', workspaceId, actorId, detail: { name: team.name } });
    return undefined;
  });
}
