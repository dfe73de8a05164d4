import { and, count, eq, gt, isNull } from 'drizzle-orm';
import { first, type Store } from '../db/store/index.js';
import { mintAccessToken } from '../oauth/access-tokens.js';
import { memberScopeCeiling } from '../oauth/consents.js';
import { revokeGrant } from '../oauth/grants.js';
import type { Scope } from '../oauth/scopes.js';
import { getAccessTokenSettings } from './access-token-settings.js';
import { deny, inTransaction, type Outcome } from './outcome.js';
import { actorIn } from './teams.js';

/**
 * The team's rules for access tokens made for automation (the tokens themselves: oauth/access-tokens.ts):
 * who may make one, for how long, with which permissions, how many, and who sees and revokes them.
 * Everything a token may do once made is decided by the bearer check, as for a connected app.
 */

/** The expiry the form offers: a month. */
export const DEFAULT_TOKEN_DAYS = 30;
export const TOKEN_NAME_MAX_LENGTH = 60;
/** Live tokens one person may hold in one workspace: enough for every job, few enough to review. */
export const MAX_LIVE_TOKENS = 20;
const DAY_MS = 24 * 3600 * 1000;

export interface AccessTokenRequest {
  workspaceId: string;
  name: string;
  /** As typed: checked here (a whole number of days within the workspace's maximum). */
  days: string;
  scopes: readonly Scope[];
  /** Space-separated toolsets (null: every toolset), checked by the page against the catalog's names. */
  toolsets: string | null;
  readOnly: boolean;
}

function nameProblem(name: string): string | null {
  if (!name) return 'Give the token a name, such as the job that will use it.';
  if (name.length > TOKEN_NAME_MAX_LENGTH)
    return `A token name has at most ${TOKEN_NAME_MAX_LENGTH} characters.`;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
  if (/[\u0000-\u001f\u007f]/.test(name)) return 'A token name cannot contain control characters.';
  return null;
}

/**
 * Makes an access token for the person in one of their workspaces. Refused when the workspace turned
 * tokens off, has no API credentials, the expiry is beyond its maximum, no permission is ticked or one
 * is outside the person's team ceiling, or they already hold MAX_LIVE_TOKENS there. The workspace row
 * is locked first (actorIn), so the count holds under parallel requests and across instances, and a
 * token cannot slip past tokens being turned off.
 */
export function createAccessToken(
  db: Store,
  actorId: string,
  request: AccessTokenRequest,
  resource: string,
  now = Date.now(),
): Promise<Outcome<{ token: string; grantId: string; expiresAt: number }>> {
  return inTransaction(db, async (tx) => {
    await actorIn(tx, request.workspaceId, actorId, 'member');
    const name = request.name.trim();
    const problem = nameProblem(name);
    if (problem) deny(400, problem, 'name');
    const settings = await getAccessTokenSettings(tx, request.workspaceId);
    if (!settings.allowed)
      deny(403, 'Access tokens are turned off in this workspace. A team owner or admin can turn them on.');
    const { upstreamCredentials, oauthGrants, oauthTokens } = tx.t;
    const linked = await first(
      tx.orm
        .select({ id: upstreamCredentials.workspaceId })
        .from(upstreamCredentials)
        .where(eq(upstreamCredentials.workspaceId, request.workspaceId)),
    );
    if (!linked) deny(400, 'This workspace has no API credentials linked yet: link them first.', 'workspace');
    const days = /^\d{1,4}$/.test(request.days.trim()) ? Number(request.days.trim()) : Number.NaN;
    if (!(days >= 1 && days <= settings.maxDays))
      deny(
        400,
        `Expires after: a whole number of days from 1 to ${settings.maxDays} (this workspace's limit).`,
        'days',
      );
    if (request.scopes.length === 0) deny(400, 'Tick at least one permission for the token.', 'scope');
    const ceiling = await memberScopeCeiling(tx, request.workspaceId, actorId);
    const beyond = ceiling ? request.scopes.filter((s) => !ceiling.has(s)) : [];
    if (beyond.length)
      deny(403, 'Your team settings do not allow some of the ticked permissions: untick them.', 'scope');
    if (request.toolsets === '') deny(400, 'Tick at least one toolset for the token.', 'toolsets');
    const [live] = await tx.orm
      .select({ n: count() })
      .from(oauthGrants)
      .innerJoin(oauthTokens, eq(oauthTokens.grantId, oauthGrants.id))
      .where(
        and(
          eq(oauthGrants.userId, actorId),
          eq(oauthGrants.workspaceId, request.workspaceId),
          eq(oauthGrants.kind, 'access_token'),
          isNull(oauthGrants.revokedAt),
          gt(oauthTokens.expiresAt, now),
        ),
      );
    if ((live?.n ?? 0) >= MAX_LIVE_TOKENS)
      deny(
        409,
        `You already have ${MAX_LIVE_TOKENS} access tokens in this workspace: revoke one you no longer use first.`,
      );
    const expiresAt = now + days * DAY_MS;
    const minted = await mintAccessToken(
      tx,
      {
        userId: actorId,
        workspaceId: request.workspaceId,
        name,
        scopes: request.scopes,
        toolsets: request.toolsets,
        readOnly: request.readOnly,
        expiresAt,
        resource,
      },
      now,
    );
    return { ...minted, expiresAt };
  });
}

const NOT_FOUND = 'There is no such access token, or it was already revoked.';

/** Revokes one of the person's own access tokens; anyone else's is "not found". */
export function revokeOwnAccessToken(db: Store, userId: string, grantId: string): Promise<Outcome<string>> {
  return inTransaction(db, async (tx) => {
    const { oauthGrants: g } = tx.t;
    const row = await first(
      tx.orm
        .select({ name: g.name })
        .from(g)
        .where(and(eq(g.id, grantId), eq(g.userId, userId), eq(g.kind, 'access_token'), isNull(g.revokedAt))),
    );
    if (!row) deny(404, NOT_FOUND);
    await revokeGrant(tx, grantId, 'revoked_by_user');
    return row.name ?? '';
  });
}

/** An owner or admin revokes an access token made in their workspace; another workspace's is "not found". */
export function revokeWorkspaceAccessToken(
  db: Store,
  workspaceId: string,
  actorId: string,
  grantId: string,
): Promise<Outcome<string>> {
  return inTransaction(db, async (tx) => {
    await actorIn(tx, workspaceId, actorId, 'admin');
    const { oauthGrants: g } = tx.t;
    const row = await first(
      tx.orm
        .select({ name: g.name, userId: g.userId })
        .from(g)
        .where(
          and(
            eq(g.id, grantId),
            eq(g.workspaceId, workspaceId),
            eq(g.kind, 'access_token'),
            isNull(g.revokedAt),
          ),
        ),
    );
    if (!row) deny(404, NOT_FOUND);
    await revokeGrant(tx, grantId, row.userId === actorId ? 'revoked_by_user' : 'revoked_by_admin');
    return row.name ?? '';
  });
}
