import { and, eq, gte, isNull } from 'drizzle-orm';
import { first, type Store, type Tables } from '../db/store/index.js';
import { hashToken } from '../security/tokens.js';
import { fork, settleFork } from './forks.js';
import { type IssuedTokens, lockGrantOfRefreshToken, mintPair, revokeFamily } from './grants.js';
import { rotateLiveToken } from './rotation.js';
import { formatScopes, parseScopes } from './scopes.js';

/** A client refreshing twice at once (two windows, a retried request) does it this close together. */
export const REFRESH_GRACE_MS = 10_000;

type Refusal = 'unknown' | 'expired' | 'revoked' | 'client_mismatch' | 'reused' | 'scope';
export type RefreshOutcome = { ok: true; tokens: IssuedTokens } | { ok: false; reason: Refusal };

type TokenRow = Tables['oauthTokens']['$inferSelect'];
type GrantRow = Tables['oauthGrants']['$inferSelect'];

/** Thrown inside the transaction to roll back a rotation that turned out not to be allowed. */
class Refused extends Error {
  constructor(readonly reason: Refusal) {
    super(reason);
  }
}

/**
 * Refresh-token rotation with reuse detection (OAuth 2.1 §4.3.1, RFC 9700 §4.14.2): every use returns
 * a new refresh token; one more use within REFRESH_GRACE_MS of the rotation is allowed (a client
 * refreshing twice at once), which forks the family into two branches, of which at most one lives
 * once the window has passed (forks.ts); a third use, or a second one after the window, is treated as
 * theft and its family is revoked (the grant's other families, other devices, are not). Scopes are the
 * family's, narrowed if the client asks (RFC 6749 §6).
 *
 * One transaction that first locks the family's root, the grant row (ARCHITECTURE.md, "PostgreSQL:
 * what `BEGIN IMMEDIATE` gave, asked for explicitly"): on PostgreSQL, refreshes of one family on any
 * number of instances, and a revocation of it, run one after another, and every token read or write
 * after the lock sees what the previous one committed. On SQLite the transaction alone does it (one writer). Process memory holds nothing.
 *
 * The common case (a live, unforked token, no scope asked for) goes first through rotateLiveToken (rotation.ts):
 * the same lock, rotation and new pair in one statement on PostgreSQL, one transaction on SQLite. When
 * it rotates nothing, the general path below decides: one transaction, the lock, the rotation (a
 * conditional UPDATE that matches only an unrotated token and returns it), then the checks and the
 * new pair, or the grace use, or the family's revocation. A rotation whose checks fail is rolled back.
 */
export interface RefreshRequest {
  refreshToken: string;
  /** The authenticated client: it must be the one the token was issued to. */
  clientId: string;
  /** The `scope` parameter, when sent: a narrowing of the family's scopes. */
  requestedScope: string | undefined;
  accessTtlMs: number;
}

export async function refreshGrant(
  db: Store,
  request: RefreshRequest,
  now = Date.now(),
): Promise<RefreshOutcome> {
  const { refreshToken, clientId, requestedScope, accessTtlMs } = request;
  const tokenHash = hashToken(refreshToken);
  if (requestedScope === undefined) {
    const tokens = await rotateLiveToken(db, { tokenHash, clientId, accessTtlMs, now });
    if (tokens) return { ok: true, tokens };
  }
  try {
    return await db.transaction(async (tx): Promise<RefreshOutcome> => {
      const { oauthTokens: t } = tx.t;
      const grant = await lockGrantOfRefreshToken(tx, tokenHash);
      if (!grant) return { ok: false, reason: 'unknown' };
      const [rotated] = await tx.orm
        .update(t)
        .set({ rotatedAt: now })
        .where(and(eq(t.tokenHash, tokenHash), isNull(t.rotatedAt)))
        .returning();
      if (rotated) {
        const scopes = allowed(grant, rotated, clientId, requestedScope, now);
        const place = await settleFork(tx, grant, rotated, REFRESH_GRACE_MS, now);
        const tokens = await mintPair(tx, familyOf(grant, rotated), scopes, accessTtlMs, now, place);
        return { ok: true, tokens };
      }
      // Rotated before: the grace use, or reuse.
      const token = await first(tx.orm.select().from(t).where(eq(t.tokenHash, tokenHash)));
      if (!token) return { ok: false, reason: 'unknown' };
      const scopes = allowed(grant, token, clientId, requestedScope, now);
      const graced = await tx.orm
        .update(t)
        .set({ graceUsedAt: now })
        .where(
          and(eq(t.tokenHash, tokenHash), gte(t.rotatedAt, now - REFRESH_GRACE_MS), isNull(t.graceUsedAt)),
        )
        .returning({ tokenHash: t.tokenHash });
      if (graced.length === 1) {
        const place = await fork(tx, token.familyId, now);
        const tokens = await mintPair(tx, familyOf(grant, token), scopes, accessTtlMs, now, place);
        return { ok: true, tokens };
      }
      await revokeFamily(tx, familyOf(grant, token), 'refresh_token_reuse', now);
      return { ok: false, reason: 'reused' };
    });
  } catch (error) {
    if (error instanceof Refused) return { ok: false, reason: error.reason };
    throw error;
  }
}

/** The family's scopes (refresh tokens minted before families carried them: the grant's). */
function familyOf(grant: GrantRow, token: TokenRow) {
  return { grantId: grant.id, familyId: token.familyId, scopes: token.scopes ?? grant.scopes };
}

/**
 * The access token's scopes if this token may be refreshed by this client now, else throws Refused.
 * RFC 6749 §6: a refresh may narrow the access token's scope, never widen it; the refresh token keeps it.
 */
function allowed(
  grant: GrantRow,
  token: TokenRow,
  clientId: string,
  requestedScope: string | undefined,
  now: number,
): string {
  if (grant.clientId !== clientId) throw new Refused('client_mismatch');
  if (grant.revokedAt || token.revokedAt) throw new Refused('revoked');
  if (token.expiresAt <= now) throw new Refused('expired');
  const familyScopes = familyOf(grant, token).scopes;
  if (requestedScope === undefined) return familyScopes;
  const granted = new Set(parseScopes(familyScopes));
  const asked = parseScopes(requestedScope);
  if (asked.some((s) => !granted.has(s))) throw new Refused('scope');
  return asked.length ? formatScopes(asked) : familyScopes;
}
