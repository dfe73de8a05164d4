import { and, asc, eq, sql } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { upstreamCredentials, workspaceMembers, workspaces } from '../db/schema/index.js';

export type WorkspaceKind = 'personal' | 'team';
export type WorkspaceRole = 'owner' | 'admin' | 'member';

export interface WorkspaceSummary {
  id: string;
  name: string;
  kind: WorkspaceKind;
  role: WorkspaceRole;
  hasCredential: boolean;
}

/** Transaction or database: the queries here run in either. */
type Runner = Pick<Db, 'select' | 'insert' | 'update' | 'delete'>;

/** The user's workspaces, personal first, then teams by name. */
export function listWorkspacesForUser(db: Runner, userId: string): WorkspaceSummary[] {
  const rows = db
    .select({
      id: workspaces.id,
      name: workspaces.name,
      kind: workspaces.kind,
      role: workspaceMembers.role,
      credential: upstreamCredentials.workspaceId,
    })
    .from(workspaceMembers)
    .innerJoin(workspaces, eq(workspaces.id, workspaceMembers.workspaceId))
    .leftJoin(upstreamCredentials, eq(upstreamCredentials.workspaceId, workspaces.id))
    .where(eq(workspaceMembers.userId, userId))
    .orderBy(sql`case ${workspaces.kind} when 'personal' then 0 else 1 end`, asc(workspaces.name))
    .all();
  return rows.map(({ credential, ...row }) => ({ ...row, hasCredential: credential !== null }));
}

/** The id of the user's personal workspace (made at sign-up), or null for an unknown user. */
export function getPersonalWorkspaceId(db: Runner, userId: string): string | null {
  const row = db
    .select({ id: workspaces.id })
    .from(workspaceMembers)
    .innerJoin(workspaces, eq(workspaces.id, workspaceMembers.workspaceId))
    .where(and(eq(workspaceMembers.userId, userId), eq(workspaces.kind, 'personal')))
    .orderBy(asc(workspaces.createdAt))
    .limit(1)
    .get();
  return row?.id ?? null;
}

/** The user's membership of one workspace, or null when they are not a member. */
export function getMembership(
  db: Runner,
  workspaceId: string,
  userId: string,
): {
  workspaceId: string;
  name: string;
  kind: WorkspaceKind;
  role: WorkspaceRole;
  upstreamUserId: string | null;
} | null {
  const row = db
    .select({
      workspaceId: workspaces.id,
      name: workspaces.name,
      kind: workspaces.kind,
      role: workspaceMembers.role,
      upstreamUserId: workspaceMembers.upstreamUserId,
    })
    .from(workspaceMembers)
    .innerJoin(workspaces, eq(workspaces.id, workspaceMembers.workspaceId))
    .where(and(eq(workspaceMembers.workspaceId, workspaceId), eq(workspaceMembers.userId, userId)))
    .get();
  return row ?? null;
}

/** Roles that may link, replace or remove a workspace's upstream credential. */
export function canManageCredentials(role: WorkspaceRole): boolean {
  return role === 'owner' || role === 'admin';
}

/** Creates a personal workspace owned by the user. Call inside the sign-up transaction. */
export function createPersonalWorkspace(
  db: Runner,
  input: { id: string; userId: string; name: string; now: number },
) {
  db.insert(workspaces)
    .values({ id: input.id, name: input.name, kind: 'personal', createdAt: input.now, updatedAt: input.now })
    .run();
  db.insert(workspaceMembers)
    .values({ workspaceId: input.id, userId: input.userId, role: 'owner', createdAt: input.now })
    .run();
}
