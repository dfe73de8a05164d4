import { and, asc, eq, sql } from 'drizzle-orm';
import { first, type Store } from '../db/store/index.js';

export type WorkspaceKind = 'personal' | 'team';
export type WorkspaceRole = 'owner' | 'admin' | 'member';

export interface WorkspaceSummary {
  id: string;
  name: string;
  kind: WorkspaceKind;
  role: WorkspaceRole;
  hasCredential: boolean;
}

/** The user's workspaces: their own personal one first, then teams by name. */
export async function listWorkspacesForUser(db: Store, userId: string): Promise<WorkspaceSummary[]> {
  const { workspaces, workspaceMembers, upstreamCredentials } = db.t;
  const rows = await db.orm
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
    // The user's own personal workspace first, then other personal ones they joined, then teams by name
    // (the id last, so the order is the same on both engines).
    .orderBy(
      sql`case when ${workspaces.kind} = 'personal' and ${workspaceMembers.role} = 'owner' then 0 when ${workspaces.kind} = 'personal' then 1 else 2 end`,
      asc(workspaces.name),
      asc(workspaces.id),
    );
  return rows.map(({ credential, ...row }) => ({ ...row, hasCredential: credential !== null }));
}

/** The id of the user's personal workspace (made at sign-up), or null for an unknown user. */
export async function getPersonalWorkspaceId(db: Store, userId: string): Promise<string | null> {
  const { workspaces, workspaceMembers } = db.t;
  const row = await first(
    db.orm
      .select({ id: workspaces.id })
      .from(workspaceMembers)
      .innerJoin(workspaces, eq(workspaces.id, workspaceMembers.workspaceId))
      .where(and(eq(workspaceMembers.userId, userId), eq(workspaces.kind, 'personal')))
      .orderBy(asc(workspaces.createdAt))
      .limit(1),
  );
  return row?.id ?? null;
}

export interface Membership {
  workspaceId: string;
  name: string;
  kind: WorkspaceKind;
  role: WorkspaceRole;
  upstreamUserId: string | null;
}

/** The user's membership of one workspace, or null when they are not a member. */
export async function getMembership(
  db: Store,
  workspaceId: string,
  userId: string,
): Promise<Membership | null> {
  const { workspaces, workspaceMembers } = db.t;
  const row = await first(
    db.orm
      .select({
        workspaceId: workspaces.id,
        name: workspaces.name,
        kind: workspaces.kind,
        role: workspaceMembers.role,
        upstreamUserId: workspaceMembers.upstreamUserId,
      })
      .from(workspaceMembers)
      .innerJoin(workspaces, eq(workspaces.id, workspaceMembers.workspaceId))
      .where(and(eq(workspaceMembers.workspaceId, workspaceId), eq(workspaceMembers.userId, userId))),
  );
  return row ?? null;
}

/** Roles that may link, replace or remove a workspace's upstream credential. */
export function canManageCredentials(role: WorkspaceRole): boolean {
  return role === 'owner' || role === 'admin';
}

/** Creates a personal workspace owned by the user. Call inside the sign-up transaction. */
export async function createPersonalWorkspace(
  db: Store,
  input: { id: string; userId: string; name: string; now: number },
): Promise<void> {
  const { workspaces, workspaceMembers } = db.t;
  await db.orm
    .insert(workspaces)
    .values({ id: input.id, name: input.name, kind: 'personal', createdAt: input.now, updatedAt: input.now });
  await db.orm
    .insert(workspaceMembers)
    .values({ workspaceId: input.id, userId: input.userId, role: 'owner', createdAt: input.now });
}
