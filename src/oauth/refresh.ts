import { and, eq, gte, isNull, sql } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { oauthGrants, oauthTokens } from '../db/schema/index.js';
import { oncePer } from '../once-per.js';
import { hashToken } from '../security/tokens.js';
import { type IssuedTokens, mintPair, revokeFamily } from './grants.js';
import { formatScopes, parseScopes } from './scopes.js';

/** A client refreshing twice at once (two windows, a retried request) does it this close together. */
export const REFRESH_GRACE_MS = 10_000;

/** The refresh token → grant query, prepared once per database (its SQL cost more to build than to run). */
function buildStatements(db: Db) {
  const p = sql.placeholder;
  return {
    lookup: db
      .select({ token: oauthTokens, grant: oauthGrants })
      .from(oauthTokens)
      .innerJoin(oauthGrants, eq(oauthGrants.id, oauthTokens.grantId))
      .where(and(eq(oauthTokens.tokenHash, p('tokenHash')), eq(oauthTokens.kind, 'refresh')))
      .prepare(),
    /** The rotation itself: only the first use of a refresh token matches. */
    rotate: db
      .update(oauthTokens)
      .set({ rotatedAt: sql`${p('now')}` })
      .where(and(eq(oauthTokens.tokenHash, p('tokenHash')), isNull(oauthTokens.rotatedAt)))
      .prepare(),
    /** The one extra pair the grace window allows: matches once, and only inside the window. */
    graceUse: db
      .update(oauthTokens)
      .set({ graceUsedAt: sql`${p('now')}` })
      .where(
        and(
          eq(oauthTokens.tokenHash, p('tokenHash')),
          gte(oauthTokens.rotatedAt, p('windowStart')),
          isNull(oauthTokens.graceUsedAt),
        ),
      )
      .prepare(),
  };
}
const statements = oncePer(buildStatements);

export type RefreshOutcome =
  | { ok: true; tokens: IssuedTokens }
  | { ok: false; reason: 'unknown' | 'expired' | 'revoked' | 'client_mismatch' | 'reused' | 'scope' };

/**
 * Whether this use of a refresh token may mint a pair: its first use (the rotation, OAuth 2.1 §4.3.1),
 * or one more use within REFRESH_GRACE_MS of it (DESIGN.md §4: a client refreshing twice at once).
 * Each is a conditional UPDATE, so of any number of concurrent uses at most two win, on SQLite or on
 * several instances sharing PostgreSQL; process memory holds nothing.
 */
function claimUse(db: Db, tokenHash: string, now: number): boolean {
  const s = statements(db);
  if (s.rotate.run({ tokenHash, now }).changes === 1) return true;
  return s.graceUse.run({ tokenHash, now, windowStart: now - REFRESH_GRACE_MS }).changes === 1;
}

/**
 * Refresh-token rotation with reuse detection (OAuth 2.1 §4.3.1, RFC 9700 §4.14.2): every use returns
 * a new refresh token; a third use of one token, or a second one after the grace window, is treated as
 * theft and its family is revoked (the grant's other families, other devices, are not). Scopes are the
 * family's, narrowed if the client asks (RFC 6749 §6). Runs as one IMMEDIATE transaction on SQLite.
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
    const row = statements(db).lookup.get({ tokenHash: hashToken(refreshToken) });
    if (!row) return { ok: false, reason: 'unknown' };
    const { token, grant } = row;
    if (grant.clientId !== clientId) return { ok: false, reason: 'client_mismatch' };
    if (grant.revokedAt || token.revokedAt) return { ok: false, reason: 'revoked' };
    if (token.expiresAt <= now) return { ok: false, reason: 'expired' };
    // The family's scopes (refresh tokens minted before families carried them: the grant's). RFC 6749
    // §6: a refresh may narrow the access token's scope, never widen it; the refresh token keeps it.
    const familyScopes = token.scopes ?? grant.scopes;
    const granted = new Set(parseScopes(familyScopes));
    let scopes = familyScopes;
    if (requestedScope !== undefined) {
      const asked = parseScopes(requestedScope);
      if (asked.some((s) => !granted.has(s))) return { ok: false, reason: 'scope' };
      if (asked.length) scopes = formatScopes(asked);
    }
    const family = { grantId: grant.id, familyId: token.familyId, scopes: familyScopes };
    if (!claimUse(db, token.tokenHash, now)) {
      revokeFamily(db, family, 'refresh_token_reuse', now);
      return { ok: false, reason: 'reused' };
    }
    return { ok: true, tokens: mintPair(db, family, scopes, accessTtlMs, now) };
  });
  return run.immediate();
}
