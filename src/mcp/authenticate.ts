import { and, eq, sql } from 'drizzle-orm';
import { defaultUpstreamUserId } from '../accounts/credentials.js';
import { hasRecentEvent } from '../audit/query.js';
import { recordAudit } from '../audit/record.js';
import type { Config } from '../config.js';
import type { Store } from '../db/store/index.js';
import { revokeGrant } from '../oauth/grants.js';
import { parseScopes, type Scope } from '../oauth/scopes.js';
import { oncePer } from '../once-per.js';
import type { SecretBox } from '../security/secrets.js';
import { hashToken } from '../security/tokens.js';
import type { Caller } from './caller.js';

/** last_used_at is written at most this often per grant, so a busy client costs no write per call. */
const LAST_USED_RESOLUTION_MS = 60_000;
/** A removed member's app refused again within this long is not audited again. */
const REFUSAL_AUDIT_INTERVAL_MS = 60_000;
/** Opaque access tokens are prefix + 43 base64url characters; anything far off is not worth a lookup. */
const MAX_TOKEN_LENGTH = 200;

/**
 * The token → caller query, prepared once per store: building its SQL cost more than running it, and
 * on PostgreSQL it is then one named statement, parsed and planned once per connection.
 */
function buildLookup(db: Store) {
  const { oauthTokens, oauthGrants, workspaceMembers, upstreamCredentials, workspaces } = db.t;
  return db.orm
    .select({
      kind: oauthTokens.kind,
      tokenScopes: oauthTokens.scopes,
      expiresAt: oauthTokens.expiresAt,
      tokenRevokedAt: oauthTokens.revokedAt,
      grantId: oauthGrants.id,
      userId: oauthGrants.userId,
      workspaceId: oauthGrants.workspaceId,
      clientId: oauthGrants.clientId,
      grantScopes: oauthGrants.scopes,
      resource: oauthGrants.resource,
      grantRevokedAt: oauthGrants.revokedAt,
      grantRevokedReason: oauthGrants.revokedReason,
      lastUsedAt: oauthGrants.lastUsedAt,
      member: workspaceMembers.userId,
      memberUpstreamUserId: workspaceMembers.upstreamUserId,
      memberMaxScopes: workspaceMembers.maxScopes,
      memberRole: workspaceMembers.role,
      memberCanChangeWebhook: workspaceMembers.canChangeWebhook,
      membersReadTeamWork: workspaces.membersReadTeamWork,
      tokenCiphertext: upstreamCredentials.tokenCiphertext,
    })
    .from(oauthTokens)
    .innerJoin(oauthGrants, eq(oauthGrants.id, oauthTokens.grantId))
    .leftJoin(
      workspaceMembers,
      and(
        eq(workspaceMembers.workspaceId, oauthGrants.workspaceId),
        eq(workspaceMembers.userId, oauthGrants.userId),
      ),
    )
    .leftJoin(upstreamCredentials, eq(upstreamCredentials.workspaceId, oauthGrants.workspaceId))
    .leftJoin(workspaces, eq(workspaces.id, oauthGrants.workspaceId))
    .where(eq(oauthTokens.tokenHash, sql.placeholder('tokenHash')))
    .prepare('bearer_lookup');
}
const lookup = oncePer(buildLookup);

export type BearerResult =
  | {
      ok: true;
      caller: Caller;
      expiresAt: number;
      /**
       * The member's scope ceiling (team policy), null for none. A scope outside it is one no
       * re-authorization can grant: /mcp answers such a call with a tool error, not a step-up 403.
       */
      ceiling: ReadonlySet<Scope> | null;
    }
  | { ok: false; reason: string };

/** Revocation reasons that mean the person's membership of the grant's workspace ended. */
const MEMBERSHIP_ENDED = new Set(['member_removed', 'member_left']);
const NOT_A_MEMBER =
  'You are no longer a member of the workspace this app was connected to. Connect the app again and choose one of your workspaces.';

/**
 * Resolves an access token to its caller in one indexed query: token → grant → membership →
 * workspace credential. Refused when unknown, expired, revoked, bound to another resource (audience,
 * RFC 8707), or when the user is no longer a member of the grant's workspace.
 */
export async function verifyAccessToken(
  db: Store,
  secrets: SecretBox,
  config: Config,
  token: string,
  now = Date.now(),
): Promise<BearerResult> {
  if (token.length > MAX_TOKEN_LENGTH) return { ok: false, reason: 'The access token is malformed.' };
  const [row] = await lookup(db).execute({ tokenHash: hashToken(token) });
  if (row?.kind !== 'access') return { ok: false, reason: 'The access token is not valid.' };
  if (row.grantRevokedReason !== null && MEMBERSHIP_ENDED.has(row.grantRevokedReason)) {
    await recordRemovedMemberRefusal(db, row, now);
    return { ok: false, reason: NOT_A_MEMBER };
  }
  if (row.tokenRevokedAt !== null || row.grantRevokedAt !== null)
    return { ok: false, reason: 'The access token was revoked.' };
  if (row.expiresAt <= now) return { ok: false, reason: 'The access token has expired.' };
  if (row.resource !== config.resourceUrl)
    return { ok: false, reason: 'The access token was issued for another resource.' };
  if (row.member === null || row.memberRole === null) {
    // The membership ended some way that left the grant live: it ends now, as removal would end it.
    await revokeGrant(db, row.grantId, 'member_removed', now);
    await recordRemovedMemberRefusal(db, row, now);
    return { ok: false, reason: NOT_A_MEMBER };
  }

  if (row.lastUsedAt === null || now - row.lastUsedAt > LAST_USED_RESOLUTION_MS) {
    const { oauthGrants } = db.t;
    await db.orm.update(oauthGrants).set({ lastUsedAt: now }).where(eq(oauthGrants.id, row.grantId));
  }
  // A member's ceiling lowered after the grant takes effect now, not at the next sign-in.
  const ceiling = row.memberMaxScopes === null ? null : new Set(parseScopes(row.memberMaxScopes));
  let scopes = parseScopes(row.tokenScopes ?? row.grantScopes);
  if (ceiling) scopes = scopes.filter((s) => ceiling.has(s));
  // Decrypted on first use only: tools/list, initialize and pings never need the upstream token, and
  // an AES-GCM open is a tenth of such a request's CPU.
  const { tokenCiphertext, workspaceId } = row;
  const upstreamUserId = row.memberUpstreamUserId ?? defaultUpstreamUserId(row.userId);
  let upstream: Caller['upstream'] | undefined;
  return {
    ok: true,
    expiresAt: row.expiresAt,
    ceiling,
    caller: {
      grantId: row.grantId,
      userId: row.userId,
      workspaceId,
      clientId: row.clientId,
      scopes,
      team: {
        role: row.memberRole,
        canChangeWebhook: row.memberCanChangeWebhook,
        membersReadTeamWork: row.membersReadTeamWork ?? true,
      },
      get upstream() {
        upstream ??= tokenCiphertext
          ? { token: secrets.open(tokenCiphertext, workspaceId), userId: upstreamUserId }
          : null;
        return upstream;
      },
    },
  };
}

/**
 * An audit event for a removed member's app knocking (DESIGN.md §4: every refusal is audited), at most
 * one a minute per person and app, so a client retrying in a loop cannot fill the trail (the check
 * reads the trail through its (user, at) index; two instances racing may both write, which is harmless).
 */
async function recordRemovedMemberRefusal(
  db: Store,
  row: { userId: string; workspaceId: string; clientId: string },
  now: number,
): Promise<void> {
  const recent = await hasRecentEvent(
    db,
    { kind: 'access_refused', userId: row.userId, clientId: row.clientId, workspaceId: row.workspaceId },
    now - REFUSAL_AUDIT_INTERVAL_MS,
  );
  if (recent) return;
  await recordAudit(
    db,
    {
      kind: 'access_refused',
      workspaceId: row.workspaceId,
      userId: row.userId,
      clientId: row.clientId,
      status: 'refused',
      detail: { reason: 'member_removed' },
    },
    now,
  );
}
