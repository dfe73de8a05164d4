import { and, desc, eq, isNull } from 'drizzle-orm';
import { first, grantSubject, type Store } from '../db/store/index.js';
import { revokeGrant } from '../oauth/grants.js';
import { parseScopes, type Scope } from '../oauth/scopes.js';
import { grantColumns } from './grant-columns.js';
import { deny, inTransaction, type Outcome } from './outcome.js';
import { actorIn } from './teams.js';

/**
 * A connected app: one live grant (a client authorized by a user in a workspace). Access tokens made
 * for automation are grants too, listed apart (access-token-list.ts).
 */
export interface ConnectedApp {
  grantId: string;
  clientId: string;
  clientName: string;
  workspaceId: string;
  workspaceName: string;
  userId: string;
  userEmail: string;
  scopes: Scope[];
  /** The toolsets chosen at consent (space-separated; null: every toolset) and read-only. */
  toolsets: string | null;
  readOnly: boolean;
  createdAt: number;
  lastUsedAt: number | null;
}

function query(db: Store) {
  const { oauthGrants, oauthClients, users, workspaces } = db.t;
  return db.orm
    .select({
      ...grantColumns(db.t),
      clientId: oauthGrants.clientId,
      clientName: oauthClients.clientName,
    })
    .from(oauthGrants)
    .innerJoin(workspaces, eq(workspaces.id, oauthGrants.workspaceId))
    .innerJoin(users, eq(users.id, oauthGrants.userId))
    .leftJoin(oauthClients, eq(oauthClients.id, oauthGrants.clientId));
}

type Row = Awaited<ReturnType<typeof query>>[number];

function view(row: Row): ConnectedApp {
  return {
    ...row,
    clientName: row.clientName ?? row.clientId,
    scopes: parseScopes(row.scopes),
  };
}

/** The user's own live grants, in every workspace, newest first. */
export async function listAppsForUser(db: Store, userId: string): Promise<ConnectedApp[]> {
  const { oauthGrants } = db.t;
  const rows = await query(db)
    .where(and(eq(oauthGrants.userId, userId), eq(oauthGrants.kind, 'oauth'), isNull(oauthGrants.revokedAt)))
    .orderBy(desc(oauthGrants.createdAt));
  return rows.map(view);
}

/** Every live grant in the workspace (admin view), newest first. */
export async function listAppsForWorkspace(db: Store, workspaceId: string): Promise<ConnectedApp[]> {
  const { oauthGrants } = db.t;
  const rows = await query(db)
    .where(
      and(
        eq(oauthGrants.workspaceId, workspaceId),
        eq(oauthGrants.kind, 'oauth'),
        isNull(oauthGrants.revokedAt),
      ),
    )
    .orderBy(desc(oauthGrants.createdAt));
  return rows.map(view);
}

const NOT_FOUND = 'There is no such connected app, or it was already revoked.';

/**
 * A live connected app (an OAuth grant) of the person's own (`userId`) or made in the workspace
 * (`workspaceId`); anything else, or none, is a 404.
 */
async function liveApp(tx: Store, grantId: string, within: { userId: string } | { workspaceId: string }) {
  const { oauthGrants } = tx.t;
  const owner =
    'userId' in within
      ? eq(oauthGrants.userId, within.userId)
      : eq(oauthGrants.workspaceId, within.workspaceId);
  const row = await first(
    query(tx).where(
      and(eq(oauthGrants.id, grantId), owner, eq(oauthGrants.kind, 'oauth'), isNull(oauthGrants.revokedAt)),
    ),
  );
  if (!row) deny(404, NOT_FOUND);
  return row;
}

/** Revokes one of the user's own grants; another user's grant id is "not found". */
export function revokeOwnApp(db: Store, userId: string, grantId: string): Promise<Outcome<ConnectedApp>> {
  return inTransaction(db, async (tx) => {
    const row = await liveApp(tx, grantId, { userId });
    await revokeGrant(tx, grantId, 'revoked_by_user');
    return view(row);
  });
}

/** An admin revokes a grant made in their workspace; a grant of another workspace is "not found". */
export function revokeWorkspaceApp(
  db: Store,
  workspaceId: string,
  actorId: string,
  grantId: string,
): Promise<Outcome<ConnectedApp>> {
  return inTransaction(db, async (tx) => {
    await actorIn(tx, workspaceId, actorId, 'admin');
    const row = await liveApp(tx, grantId, { workspaceId });
    await revokeGrant(tx, grantId, row.userId === actorId ? 'revoked_by_user' : 'revoked_by_admin');
    return view(row);
  });
}

/**
 * The person changes which toolsets one of their connected apps sees, and whether it is read-only:
 * on the grant (the app's next request follows it) and on the remembered consent (the next
 * authorization starts from it). It only narrows what the app sees; its permissions stay as allowed.
 */
export function setAppToolsets(
  db: Store,
  userId: string,
  grantId: string,
  choice: { toolsets: string | null; readOnly: boolean },
): Promise<Outcome<ConnectedApp>> {
  return inTransaction(db, async (tx) => {
    const { oauthGrants, consents } = tx.t;
    const row = await liveApp(tx, grantId, { userId });
    if (choice.toolsets === '') deny(400, 'Tick at least one toolset, or disconnect the app.', 'toolsets');
    await tx.orm.update(oauthGrants).set(choice).where(eq(oauthGrants.id, grantId));
    await tx.orm
      .update(consents)
      .set(choice)
      .where(
        and(
          eq(consents.userId, userId),
          eq(consents.clientId, row.clientId),
          eq(consents.workspaceId, row.workspaceId),
        ),
      );
    await tx.invalidate(grantSubject(grantId));
    return view({ ...row, ...choice });
  });
}
