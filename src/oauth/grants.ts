import { and, eq, isNull, sql } from 'drizzle-orm';
import { recordAudit } from '../audit/record.js';
import type { Db } from '../db/client.js';
import { oauthCodes, oauthGrants, oauthTokens } from '../db/schema/index.js';
import { oncePer } from '../once-per.js';
import { hashToken, newId, newToken } from '../security/tokens.js';
import { formatScopes, parseScopes, type Scope } from './scopes.js';

/** Lifetimes (DESIGN.md §4). */
export const CODE_TTL_MS = 60_000;
export const REFRESH_TTL_MS = 30 * 24 * 3600 * 1000;
/** Two refreshes with one token this close together are a client race, not theft. */
export const REFRESH_GRACE_MS = 10_000;

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
  codeChallenge: string;
  scopes: readonly Scope[];
  resource: string;
}

/** Stores an authorization code (hashed) and returns it. */
export function createAuthorizationCode(db: Db, request: CodeRequest, now = Date.now()): string {
  const code = newToken('code');
  db.insert(oauthCodes)
    .values({
      codeHash: hashToken(code),
      clientId: request.clientId,
      userId: request.userId,
      workspaceId: request.workspaceId,
      redirectUri: request.redirectUri,
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

/** A new access token (carrying `scopes`, which may be narrower than the grant's) and refresh token. */
function mintPair(db: Db, grantId: string, scopes: string, accessTtlMs: number, now: number) {
  const access = newToken('access');
  const refresh = newToken('refresh');
  db.insert(oauthTokens)
    .values([
      {
        tokenHash: hashToken(access),
        grantId,
        kind: 'access',
        scopes,
        createdAt: now,
        expiresAt: now + accessTtlMs,
      },
      {
        tokenHash: hashToken(refresh),
        grantId,
        kind: 'refresh',
        createdAt: now,
        expiresAt: now + REFRESH_TTL_MS,
      },
    ])
    .run();
  return { access, refresh };
}

/** Exchanges a claimed code for a new grant (a token family) and its first tokens. */
export function issueGrantForCode(
  db: Db,
  code: CodeRow,
  accessTtlMs: number,
  now = Date.now(),
): IssuedTokens {
  return db.transaction((tx) => {
    const grantId = newId();
    tx.insert(oauthGrants)
      .values({
        id: grantId,
        userId: code.userId,
        workspaceId: code.workspaceId,
        clientId: code.clientId,
        scopes: code.scopes,
        resource: code.resource,
        createdAt: now,
      })
      .run();
    tx.update(oauthCodes).set({ grantId }).where(eq(oauthCodes.codeHash, code.codeHash)).run();
    recordAudit(
      tx,
      {
        kind: 'grant_created',
        workspaceId: code.workspaceId,
        userId: code.userId,
        clientId: code.clientId,
        detail: { scopes: code.scopes },
      },
      now,
    );
    const { access, refresh } = mintPair(tx as unknown as Db, grantId, code.scopes, accessTtlMs, now);
    return tokenResponse(access, refresh, accessTtlMs, code.scopes);
  });
}

function tokenResponse(access: string, refresh: string, accessTtlMs: number, scopes: string): IssuedTokens {
  return {
    access_token: access,
    token_type: 'Bearer',
    expires_in: Math.floor(accessTtlMs / 1000),
    refresh_token: refresh,
    scope: scopes,
  };
}

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

/** The refresh token → grant query, prepared once per database (its SQL cost more to build than to run). */
function buildRefreshLookup(db: Db) {
  return db
    .select({ token: oauthTokens, grant: oauthGrants })
    .from(oauthTokens)
    .innerJoin(oauthGrants, eq(oauthGrants.id, oauthTokens.grantId))
    .where(and(eq(oauthTokens.tokenHash, sql.placeholder('tokenHash')), eq(oauthTokens.kind, 'refresh')))
    .prepare();
}
const refreshLookup = oncePer(buildRefreshLookup);

export type RefreshOutcome =
  | { ok: true; tokens: IssuedTokens }
  | { ok: false; reason: 'unknown' | 'expired' | 'revoked' | 'client_mismatch' | 'reused' | 'scope' };

/**
 * Refresh-token rotation (OAuth 2.1 §4.3.1, RFC 9700 §4.14.2): every use returns a new refresh token.
 * A token used again within REFRESH_GRACE_MS of its rotation (a client refreshing twice at once) gets
 * another pair; used again later, it is treated as stolen and the whole family is revoked.
 * Runs as one IMMEDIATE transaction so concurrent refreshes see each other's rotation.
 */
export function refreshGrant(
  db: Db,
  refreshToken: string,
  clientId: string,
  requestedScope: string | undefined,
  accessTtlMs: number,
  now = Date.now(),
): RefreshOutcome {
  const run = db.$client.transaction((): RefreshOutcome => {
    const row = refreshLookup(db).get({ tokenHash: hashToken(refreshToken) });
    if (!row) return { ok: false, reason: 'unknown' };
    const { token, grant } = row;
    if (grant.clientId !== clientId) return { ok: false, reason: 'client_mismatch' };
    if (grant.revokedAt || token.revokedAt) return { ok: false, reason: 'revoked' };
    if (token.expiresAt <= now) return { ok: false, reason: 'expired' };
    if (token.rotatedAt !== null && now - token.rotatedAt > REFRESH_GRACE_MS) {
      revokeGrant(db, grant.id, 'refresh_token_reuse', now);
      return { ok: false, reason: 'reused' };
    }
    // RFC 6749 §6: a refresh may narrow the scope, never widen it.
    const granted = new Set(parseScopes(grant.scopes));
    let scopes = grant.scopes;
    if (requestedScope !== undefined) {
      const asked = parseScopes(requestedScope);
      if (asked.some((s) => !granted.has(s))) return { ok: false, reason: 'scope' };
      if (asked.length) scopes = formatScopes(asked);
    }
    if (token.rotatedAt === null) {
      db.update(oauthTokens).set({ rotatedAt: now }).where(eq(oauthTokens.tokenHash, token.tokenHash)).run();
    }
    const { access, refresh } = mintPair(db, grant.id, scopes, accessTtlMs, now);
    return { ok: true, tokens: tokenResponse(access, refresh, accessTtlMs, scopes) };
  });
  return run.immediate();
}
