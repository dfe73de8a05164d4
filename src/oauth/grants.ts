import { and, eq, gt, isNull, sql } from 'drizzle-orm';
import { recordAudit } from '../audit/record.js';
import type { Db } from '../db/client.js';
import { oauthCodes, oauthGrants, oauthTokens } from '../db/schema/index.js';
import { hashToken, newId, newToken } from '../security/tokens.js';
import { formatScopes, parseScopes, type Scope } from './scopes.js';

/**
 * Grants and token families (DESIGN.md §4).
 *
 * A grant is one "connected app": a person's authorization of one client in one workspace, at most one
 * live grant per (user, client, workspace) (a partial unique index). A token family is what one code
 * exchange starts (one device, one session): the chain of its rotated refresh tokens and their access
 * tokens, all bound to the scopes of that authorization. Authorizing the client again (another device,
 * a step-up to more scopes) renews the grant, whose scopes become the union of what the app was
 * allowed, and starts a new family beside the others, which it neither revokes, narrows nor widens.
 * Refresh-token reuse and code replay revoke only the family concerned; revoking the connected app
 * (account page, admin, CLI) revokes the grant and every family in it. A team admin's scope ceiling
 * applies to every family at once (bearer.ts).
 */

/** Lifetimes (DESIGN.md §4). */
export const CODE_TTL_MS = 60_000;
export const REFRESH_TTL_MS = 30 * 24 * 3600 * 1000;

export interface IssuedTokens {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
}

export interface CodeRequest {
  clientId: string;
  userId: string;
  workspaceId: string;
  redirectUri: string;
  /** Whether the authorization request named redirect_uri (default true: /token must repeat it). */
  redirectUriSent?: boolean;
  codeChallenge: string;
  scopes: readonly Scope[];
  resource: string;
}

type Runner = Pick<Db, 'insert' | 'update' | 'select'>;

/** Stores an authorization code (hashed) and returns it. */
export function createAuthorizationCode(db: Runner, request: CodeRequest, now = Date.now()): string {
  const code = newToken('code');
  db.insert(oauthCodes)
    .values({
      codeHash: hashToken(code),
      clientId: request.clientId,
      userId: request.userId,
      workspaceId: request.workspaceId,
      redirectUri: request.redirectUri,
      redirectUriSent: request.redirectUriSent ?? true,
      codeChallenge: request.codeChallenge,
      scopes: formatScopes(request.scopes),
      resource: request.resource,
      createdAt: now,
      expiresAt: now + CODE_TTL_MS,
    })
    .run();
  return code;
}

export type CodeRow = typeof oauthCodes.$inferSelect;

export function findCode(db: Db, code: string): CodeRow | undefined {
  return db
    .select()
    .from(oauthCodes)
    .where(eq(oauthCodes.codeHash, hashToken(code)))
    .get();
}

/**
 * Marks a code used, atomically: of two concurrent exchanges exactly one wins (the UPDATE matches
 * only while used_at is null).
 */
export function claimCode(db: Db, codeHash: string, now = Date.now()): boolean {
  return (
    db
      .update(oauthCodes)
      .set({ usedAt: now })
      .where(and(eq(oauthCodes.codeHash, codeHash), isNull(oauthCodes.usedAt)))
      .run().changes === 1
  );
}

/**
 * A new pair in a family: the refresh token carries the family's scopes (RFC 6749 §6: a successor keeps
 * its predecessor's scope), the access token `accessScopes`, which a refresh may narrow.
 */
export function mintPair(
  db: Runner,
  family: { grantId: string; familyId: string; scopes: string },
  accessScopes: string,
  accessTtlMs: number,
  now: number,
): IssuedTokens {
  const access = newToken('access');
  const refresh = newToken('refresh');
  db.insert(oauthTokens)
    .values([
      {
        tokenHash: hashToken(access),
        grantId: family.grantId,
        familyId: family.familyId,
        kind: 'access',
        scopes: accessScopes,
        createdAt: now,
        expiresAt: now + accessTtlMs,
      },
      {
        tokenHash: hashToken(refresh),
        grantId: family.grantId,
        familyId: family.familyId,
        kind: 'refresh',
        scopes: family.scopes,
        createdAt: now,
        expiresAt: now + REFRESH_TTL_MS,
      },
    ])
    .run();
  return {
    access_token: access,
    token_type: 'Bearer',
    expires_in: Math.floor(accessTtlMs / 1000),
    refresh_token: refresh,
    scope: accessScopes,
  };
}

/**
 * Exchanges a claimed code for tokens: the (user, client, workspace) grant is created, or renewed when
 * it is already live (its scopes become the union with the code's), and a new token family starts in
 * it with the code's scopes. One statement decides which (INSERT … ON CONFLICT on the partial unique
 * index, which also locks the row for the union), so two devices authorizing at the same moment share
 * one grant on any number of instances.
 */
export function issueGrantForCode(
  db: Db,
  code: CodeRow,
  accessTtlMs: number,
  now = Date.now(),
): IssuedTokens {
  return db.transaction((tx) => {
    const candidateId = newId();
    const grant = tx
      .insert(oauthGrants)
      .values({
        id: candidateId,
        userId: code.userId,
        workspaceId: code.workspaceId,
        clientId: code.clientId,
        scopes: code.scopes,
        resource: code.resource,
        createdAt: now,
      })
      .onConflictDoUpdate({
        target: [oauthGrants.userId, oauthGrants.clientId, oauthGrants.workspaceId],
        targetWhere: sql`${oauthGrants.revokedAt} IS NULL`,
        set: { resource: code.resource },
      })
      .returning({ id: oauthGrants.id, scopes: oauthGrants.scopes })
      .get();
    const union = formatScopes([...parseScopes(grant.scopes), ...parseScopes(code.scopes)]);
    if (union !== grant.scopes) {
      tx.update(oauthGrants).set({ scopes: union }).where(eq(oauthGrants.id, grant.id)).run();
    }
    const familyId = newId();
    tx.update(oauthCodes)
      .set({ grantId: grant.id, familyId })
      .where(eq(oauthCodes.codeHash, code.codeHash))
      .run();
    recordAudit(
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

/** Revokes a grant (a connected app) and every token of every family in it. */
export function revokeGrant(db: Db, grantId: string, reason: string, now = Date.now()): void {
  db.transaction((tx) => {
    const changed = tx
      .update(oauthGrants)
      .set({ revokedAt: now, revokedReason: reason })
      .where(and(eq(oauthGrants.id, grantId), isNull(oauthGrants.revokedAt)))
      .returning()
      .get();
    tx.update(oauthTokens)
      .set({ revokedAt: now })
      .where(and(eq(oauthTokens.grantId, grantId), isNull(oauthTokens.revokedAt)))
      .run();
    if (changed) {
      recordAudit(
        tx,
        {
          kind: 'grant_revoked',
          workspaceId: changed.workspaceId,
          userId: changed.userId,
          clientId: changed.clientId,
          detail: { reason },
        },
        now,
      );
    }
  });
}

/**
 * Revokes one token family (a replayed code or refresh token, a client signing out: RFC 6749 §4.1.2,
 * RFC 9700 §4.14.2, RFC 7009 §2.1). The grant's other families (other devices) keep working; when none
 * is left that can still refresh, the grant ends too, so the connected-apps list stays truthful.
 */
export function revokeFamily(
  db: Db,
  target: { grantId: string; familyId: string },
  reason: string,
  now = Date.now(),
): void {
  db.transaction((tx) => {
    const revoked = tx
      .update(oauthTokens)
      .set({ revokedAt: now })
      .where(and(eq(oauthTokens.familyId, target.familyId), isNull(oauthTokens.revokedAt)))
      .run().changes;
    const otherLive = tx
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
      .limit(1)
      .get();
    if (!otherLive) {
      revokeGrant(tx as unknown as Db, target.grantId, reason, now);
      return;
    }
    if (revoked === 0) return;
    const grant = tx.select().from(oauthGrants).where(eq(oauthGrants.id, target.grantId)).get();
    recordAudit(
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
