import { and, desc, eq, isNull } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { oauthClients, oauthGrants, users, workspaces } from '../db/schema/index.js';
import { revokeGrant } from '../oauth/grants.js';
import { parseScopes, type Scope } from '../oauth/scopes.js';
import { deny, inTransaction, type Outcome } from './outcome.js';
import { actorIn } from './teams.js';

/** A connected app: one live grant (a client authorized by a user in a workspace). */
export interface ConnectedApp {
  grantId: string;
  clientId: string;
  clientName: string;
  workspaceId: string;
  workspaceName: string;
  userId: string;
  userEmail: string;
  scopes: Scope[];
  createdAt: number;
  lastUsedAt: number | null;
}

function query(db: Db) {
  return db
    .select({
      grantId: oauthGrants.id,
      clientId: oauthGrants.clientId,
      clientName: oauthClients.clientName,
      workspaceId: oauthGrants.workspaceId,
      workspaceName: workspaces.name,
      userId: oauthGrants.userId,
      userEmail: users.email,
      scopes: oauthGrants.scopes,
      createdAt: oauthGrants.createdAt,
      lastUsedAt: oauthGrants.lastUsedAt,
    })
    .from(oauthGrants)
    .innerJoin(workspaces, eq(workspaces.id, oauthGrants.workspaceId))
    .innerJoin(users, eq(users.id, oauthGrants.userId))
    .leftJoin(oauthClients, eq(oauthClients.id, oauthGrants.clientId));
}

type Row = Awaited<ReturnType<ReturnType<typeof query>['all']>>[number];

function view(row: Row): ConnectedApp {
  return {
    ...row,
    clientName: row.clientName ?? row.clientId,
    scopes: parseScopes(row.scopes),
  };
}

/** The user's own live grants, in every workspace, newest first. */
export function listAppsForUser(db: Db, userId: string): ConnectedApp[] {
  return query(db)
    .where(and(eq(oauthGrants.userId, userId), isNull(oauthGrants.revokedAt)))
    .orderBy(desc(oauthGrants.createdAt))
    .all()
    .map(view);
}

/** Every live grant in the workspace (admin view), newest first. */
export function listAppsForWorkspace(db: Db, workspaceId: string): ConnectedApp[] {
  return query(db)
    .where(and(eq(oauthGrants.workspaceId, workspaceId), isNull(oauthGrants.revokedAt)))
    .orderBy(desc(oauthGrants.createdAt))
    .all()
    .map(view);
}

const NOT_FOUND = 'There is no such connected app, or it was already revoked.';

/** Revokes one of the user's own grants; another user's grant id is "not found". */
export function revokeOwnApp(db: Db, userId: string, grantId: string): Outcome<ConnectedApp> {
  return inTransaction(db, (tx) => {
    const row = query(tx)
      .where(and(eq(oauthGrants.id, grantId), eq(oauthGrants.userId, userId), isNull(oauthGrants.revokedAt)))
      .get();
    if (!row) deny(404, NOT_FOUND);
    revokeGrant(tx, grantId, 'revoked_by_user');
    return view(row);
  });
}

/** An admin revokes a grant made in their workspace; a grant of another workspace is "not found". */
export function revokeWorkspaceApp(
  db: Db,
  workspaceId: string,
  actorId: string,
  grantId: string,
): Outcome<ConnectedApp> {
  return inTransaction(db, (tx) => {
    actorIn(tx, workspaceId, actorId, 'admin');
    const row = query(tx)
      .where(
        and(
          eq(oauthGrants.id, grantId),
          eq(oauthGrants.workspaceId, workspaceId),
          isNull(oauthGrants.revokedAt),
        ),
      )
      .get();
    if (!row) deny(404, NOT_FOUND);
    revokeGrant(tx, grantId, row.userId === actorId ? 'revoked_by_user' : 'revoked_by_admin');
    return view(row);
  });
}
