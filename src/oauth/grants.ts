import { and, eq, gt, inArray, isNull, sql } from 'drizzle-orm';
import { recordAudit } from '../audit/record.js';
import { atomically, changed, first, forUpdate, grantSubject, type Store } from '../db/store/index.js';
import { hashToken, newId, newToken } from '../security/tokens.js';
import type { CodeRow } from './codes.js';
import { formatScopes, parseScopes } from './scopes.js';

/**
 * Grants and token families (docs/oauth.md, Rules worth knowing).
 *
 * A grant is one "connected app": a person's authorization of one client in one workspace, at most one
 * live grant per (user, client, workspace) (a partial unique index). A token family is what one code
 * exchange starts (one device, one session): the chain of its rotated refresh tokens and their access
 * tokens, all bound to the scopes of that authorization. Authorizing the client again (another device,
 * a step-up to more scopes) renews the grant, whose scopes become the union of what the app was
 * allowed, and starts a new family beside the others, which it neither revokes, narrows nor widens.
 * Refresh-token reuse and code replay revoke only the family concerned; revoking the connected app
 * (account page, admin, CLI) revokes the grant and every family in it. A team admin's scope ceiling
 * applies to every family at once (the bearer check, src/mcp/auth/authenticate.ts).
 */

/** How long a refresh token lives unused; each rotation starts the successor's 30 days afresh. */
export const REFRESH_TTL_MS = 30 * 24 * 3600 * 1000;

export interface IssuedTokens {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
}

/**
 * A new pair in a family: the refresh token carries the family's scopes (RFC 6749 §6: a successor keeps
 * its predecessor's scope), the access token `accessScopes`, which a refresh may narrow.
 */
export async function mintPair(
  db: Store,
  family: { grantId: string; familyId: string; scopes: string },
  accessScopes: string,
  accessTtlMs: number,
  now: number,
  /** The family's branch the pair is on, and its refresh token's fork (forks.ts). */
  on: { branch: string | null; forkedAt: number | null } = { branch: null, forkedAt: null },
): Promise<IssuedTokens> {
  const access = newToken('access');
  const refresh = newToken('refresh');
  await db.orm.insert(db.t.oauthTokens).values([
    {
      tokenHash: hashToken(access),
      grantId: family.grantId,
      familyId: family.familyId,
      kind: 'access',
      scopes: accessScopes,
      createdAt: now,
      expiresAt: now + accessTtlMs,
      branch: on.branch,
    },
    {
      tokenHash: hashToken(refresh),
      grantId: family.grantId,
      familyId: family.familyId,
      kind: 'refresh',
      scopes: family.scopes,
      createdAt: now,
      expiresAt: now + REFRESH_TTL_MS,
      branch: on.branch,
      forkedAt: on.forkedAt,
    },
  ]);
  return tokenResponse(access, refresh, accessScopes, accessTtlMs);
}

/** The token response (RFC 6749 §5.1) for a pair just stored. */
export function tokenResponse(
  access: string,
  refresh: string,
  accessScopes: string,
  accessTtlMs: number,
): IssuedTokens {
  return {
    access_token: access,
    token_type: 'Bearer',
    expires_in: Math.floor(accessTtlMs / 1000),
    refresh_token: refresh,
    scope: accessScopes,
  };
}

/**
 * Exchanges a claimed code for tokens (in the transaction that claimed it, when called in one): the
 * (user, client, workspace) grant is created, or renewed when
 * it is already live (its scopes become the union with the code's), and a new token family starts in
 * it with the code's scopes. One statement decides which (INSERT … ON CONFLICT on the partial unique
 * index, which also locks the row for the union), so two devices authorizing at the same moment share
 * one grant on any number of instances.
 */
export function issueGrantForCode(
  db: Store,
  code: CodeRow,
  accessTtlMs: number,
  now = Date.now(),
): Promise<IssuedTokens> {
  return atomically(db, async (tx) => {
    const { oauthGrants, oauthCodes } = tx.t;
    const candidateId = newId();
    const [grant] = await tx.orm
      .insert(oauthGrants)
      .values({
        id: candidateId,
        userId: code.userId,
        workspaceId: code.workspaceId,
        clientId: code.clientId,
        scopes: code.scopes,
        toolsets: code.toolsets,
        readOnly: code.readOnly,
        resource: code.resource,
        createdAt: now,
      })
      .onConflictDoUpdate({
        target: [oauthGrants.userId, oauthGrants.clientId, oauthGrants.workspaceId],
        targetWhere: sql`${oauthGrants.revokedAt} IS NULL`,
        // The toolsets are the latest consent's choice (they narrow what is shown, never what is allowed).
        set: { resource: code.resource, toolsets: code.toolsets, readOnly: code.readOnly },
      })
      .returning({ id: oauthGrants.id, scopes: oauthGrants.scopes });
    if (!grant) throw new Error('the grant upsert returned no row');
    const union = formatScopes([...parseScopes(grant.scopes), ...parseScopes(code.scopes)]);
    if (union !== grant.scopes) {
      await tx.orm.update(oauthGrants).set({ scopes: union }).where(eq(oauthGrants.id, grant.id));
    }
    // Renewed: the live grant's resource and scopes may have changed under its tokens.
    if (grant.id !== candidateId) await tx.invalidate(grantSubject(grant.id));
    const familyId = newId();
    await tx.orm
      .update(oauthCodes)
      .set({ grantId: grant.id, familyId })
      .where(eq(oauthCodes.codeHash, code.codeHash));
    await recordAudit(
      tx,
      {
        kind: grant.id === candidateId ? 'grant_created' : 'grant_renewed',
        workspaceId: code.workspaceId,
        userId: code.userId,
        clientId: code.clientId,
        detail: { scopes: code.scopes },
      },
      now,
    );
    return mintPair(tx, { grantId: grant.id, familyId, scopes: code.scopes }, code.scopes, accessTtlMs, now);
  });
}

/**
 * Revokes a grant (a connected app) and every token of every family in it. The grant row is written
 * first: a refresh holding its lock (refresh.ts) finishes before, and one waiting for it then sees the
 * revocation; the token UPDATE, a later statement, sees every token a refresh committed meanwhile.
 */
export function revokeGrant(db: Store, grantId: string, reason: string, now = Date.now()): Promise<void> {
  return atomically(db, async (tx) => {
    const { oauthGrants, oauthTokens } = tx.t;
    const [revoked] = await tx.orm
      .update(oauthGrants)
      .set({ revokedAt: now, revokedReason: reason })
      .where(and(eq(oauthGrants.id, grantId), isNull(oauthGrants.revokedAt)))
      .returning({
        workspaceId: oauthGrants.workspaceId,
        userId: oauthGrants.userId,
        clientId: oauthGrants.clientId,
        kind: oauthGrants.kind,
        name: oauthGrants.name,
      });
    await tx.orm
      .update(oauthTokens)
      .set({ revokedAt: now })
      .where(and(eq(oauthTokens.grantId, grantId), isNull(oauthTokens.revokedAt)));
    if (revoked) {
      const { kind, name, ...who } = revoked;
      await recordAudit(
        tx,
        kind === 'access_token'
          ? { kind: 'access_token_revoked', ...who, detail: { reason, name } }
          : { kind: 'grant_revoked', ...who, detail: { reason } },
        now,
      );
    }
    await tx.invalidate(grantSubject(grantId));
  });
}

/** Locks the grant row for the rest of the transaction: the family's root, always before its tokens. */
export async function lockGrant(tx: Store, grantId: string) {
  const { oauthGrants } = tx.t;
  return first(forUpdate(tx, tx.orm.select().from(oauthGrants).where(eq(oauthGrants.id, grantId))));
}

/** lockGrant for the grant a refresh token belongs to, found in the same statement. */
export async function lockGrantOfRefreshToken(tx: Store, tokenHash: string) {
  const { oauthGrants: g, oauthTokens: t } = tx.t;
  const owner = tx.orm
    .select({ grantId: t.grantId })
    .from(t)
    .where(and(eq(t.tokenHash, tokenHash), eq(t.kind, 'refresh')));
  return first(forUpdate(tx, tx.orm.select().from(g).where(inArray(g.id, owner))));
}

/**
 * Revokes one token family (a replayed code or refresh token, a client signing out: RFC 6749 §4.1.2,
 * RFC 9700 §4.14.2, RFC 7009 §2.1). The grant's other families (other devices) keep working; when none
 * is left that can still refresh, the grant ends too, so the connected-apps list stays truthful. The
 * grant row is locked first, as a refresh locks it, so the two are ordered.
 */
export function revokeFamily(
  db: Store,
  target: { grantId: string; familyId: string },
  reason: string,
  now = Date.now(),
): Promise<void> {
  return atomically(db, async (tx) => {
    const { oauthTokens } = tx.t;
    const grant = await lockGrant(tx, target.grantId);
    const revoked = await changed(
      tx.orm
        .update(oauthTokens)
        .set({ revokedAt: now })
        .where(and(eq(oauthTokens.familyId, target.familyId), isNull(oauthTokens.revokedAt)))
        .returning({ tokenHash: oauthTokens.tokenHash }),
    );
    await tx.invalidate(grantSubject(target.grantId));
    const otherLive = await first(
      tx.orm
        .select({ tokenHash: oauthTokens.tokenHash })
        .from(oauthTokens)
        .where(
          and(
            eq(oauthTokens.grantId, target.grantId),
            eq(oauthTokens.kind, 'refresh'),
            isNull(oauthTokens.revokedAt),
            isNull(oauthTokens.rotatedAt),
            gt(oauthTokens.expiresAt, now),
          ),
        )
        .limit(1),
    );
    if (!otherLive) {
      await revokeGrant(tx, target.grantId, reason, now);
      return;
    }
    if (revoked === 0) return;
    await recordAudit(
      tx,
      {
        kind: 'token_family_revoked',
        workspaceId: grant?.workspaceId ?? null,
        userId: grant?.userId ?? null,
        clientId: grant?.clientId ?? null,
        detail: { reason },
      },
      now,
    );
  });
}
