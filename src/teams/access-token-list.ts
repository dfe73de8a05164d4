import { and, desc, eq, gt, isNull } from 'drizzle-orm';
import type { Store } from '../db/store/index.js';
import { parseScopes, type Scope } from '../oauth/scopes.js';
import { grantColumns } from './grant-columns.js';

const DAY_MS = 24 * 3600 * 1000;

/** A live access token as its owner, or the team's admins, see it (never the token itself). */
export interface AccessTokenView {
  grantId: string;
  name: string;
  workspaceId: string;
  workspaceName: string;
  userId: string;
  userEmail: string;
  scopes: Scope[];
  toolsets: string | null;
  readOnly: boolean;
  createdAt: number;
  expiresAt: number;
  lastUsedAt: number | null;
}

function listQuery(db: Store, now: number) {
  const { oauthGrants, oauthTokens, users, workspaces } = db.t;
  return {
    query: db.orm
      .select({
        ...grantColumns(db.t),
        name: oauthGrants.name,
        maxDays: workspaces.accessTokenMaxDays,
        expiresAt: oauthTokens.expiresAt,
      })
      .from(oauthGrants)
      .innerJoin(oauthTokens, eq(oauthTokens.grantId, oauthGrants.id))
      .innerJoin(workspaces, eq(workspaces.id, oauthGrants.workspaceId))
      .innerJoin(users, eq(users.id, oauthGrants.userId)),
    live: and(
      eq(oauthGrants.kind, 'access_token'),
      isNull(oauthGrants.revokedAt),
      gt(oauthTokens.expiresAt, now),
    ),
    order: desc(oauthGrants.createdAt),
    grants: oauthGrants,
  };
}

type ListRow = Awaited<ReturnType<typeof listQuery>['query']>[number];

function view(row: ListRow): AccessTokenView {
  const { maxDays, ...rest } = row;
  return {
    ...rest,
    name: row.name ?? '',
    scopes: parseScopes(row.scopes),
    // The workspace's maximum applies to tokens made before it was lowered (the bearer check's rule).
    expiresAt: Math.min(row.expiresAt, row.createdAt + maxDays * DAY_MS),
  };
}

/** The person's live access tokens, in every workspace, newest first. */
export async function accessTokensOf(
  db: Store,
  userId: string,
  now = Date.now(),
): Promise<AccessTokenView[]> {
  const q = listQuery(db, now);
  const rows = await q.query.where(and(q.live, eq(q.grants.userId, userId))).orderBy(q.order);
  return rows.map(view).filter((t) => t.expiresAt > now);
}

/** Every live access token of the workspace (owners' and admins' view), newest first. */
export async function workspaceAccessTokens(
  db: Store,
  workspaceId: string,
  now = Date.now(),
): Promise<AccessTokenView[]> {
  const q = listQuery(db, now);
  const rows = await q.query.where(and(q.live, eq(q.grants.workspaceId, workspaceId))).orderBy(q.order);
  return rows.map(view).filter((t) => t.expiresAt > now);
}
