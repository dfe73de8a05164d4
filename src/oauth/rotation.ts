import { type SQL, sql } from 'drizzle-orm';
import { type Store, statementRows } from '../db/store/index.js';
import { hashToken, newToken } from '../security/tokens.js';
import { type IssuedTokens, REFRESH_TTL_MS, tokenResponse } from './grants.js';

export interface LiveRotation {
  tokenHash: string;
  clientId: string;
  accessTtlMs: number;
  now: number;
}

/**
 * The common refresh, in as few steps as the engine allows: if `tokenHash` is a refresh token that is
 * unrotated, unrevoked, unexpired and not forked (forks.ts), of an unrevoked grant of `clientId`, it is
 * rotated and its successor pair stored with the family's scopes (the access token's too: no narrowing
 * asked for), and the pair is returned. Otherwise nothing is written and the answer is undefined:
 * refreshGrant then takes the general path, which finds out why (the grace use, a fork to settle,
 * reuse, a refusal) under the grant's lock. It succeeds exactly when the general path's first rotation
 * would, with the same rows written.
 *
 * The statements are SQL text, the same every time (prepared once per connection): the query builder
 * spent more CPU building them than the database running them (ARCHITECTURE.md, "One typing dialect": hot paths).
 */
export async function rotateLiveToken(db: Store, request: LiveRotation): Promise<IssuedTokens | undefined> {
  const { tokenHash, clientId, accessTtlMs, now } = request;
  const access = newToken('access');
  const refresh = newToken('refresh');
  const pair: Pair = {
    access: { hash: hashToken(access), expiresAt: now + accessTtlMs },
    refresh: { hash: hashToken(refresh), expiresAt: now + REFRESH_TTL_MS },
  };
  const scopes =
    db.engine === 'postgres'
      ? await inOneStatement(db, tokenHash, clientId, now, pair)
      : await inOneTransaction(db, tokenHash, clientId, now, pair);
  return scopes === undefined ? undefined : tokenResponse(access, refresh, scopes, accessTtlMs);
}

interface Pair {
  access: { hash: string; expiresAt: number };
  refresh: { hash: string; expiresAt: number };
}

/**
 * PostgreSQL: one statement, so one round trip and no BEGIN or COMMIT (five of the seven round trips a
 * refresh cost). Its parts take their locks in the general path's order: the grant row FOR UPDATE
 * first (the family's root: a concurrent refresh or revocation of the family waits for this one, or
 * this one for it), then the token's conditional UPDATE, fed only by the locked row (UPDATE … FROM),
 * then the INSERT of the pair from what the UPDATE returned. Having waited for a lock, PostgreSQL reads
 * the grant row as committed meanwhile and re-checks the conditions on it, and so it does for a token
 * row updated meanwhile (READ COMMITTED's re-check): a token rotated or revoked, or a grant revoked,
 * by the transaction waited for matches nothing, and nothing is written.
 */
async function inOneStatement(
  db: Store,
  tokenHash: string,
  clientId: string,
  now: number,
  pair: Pair,
): Promise<string | undefined> {
  const [row] = await statementRows(
    db,
    sql`
    WITH locked AS MATERIALIZED (
      SELECT g.id, g.scopes FROM oauth_grants g
      WHERE g.id = (SELECT t.grant_id FROM oauth_tokens t WHERE t.token_hash = ${tokenHash} AND t.kind = 'refresh')
        AND g.client_id = ${clientId} AND g.revoked_at IS NULL
      FOR UPDATE
    ),
    rotated AS (
      UPDATE oauth_tokens t SET rotated_at = ${now}::bigint
      FROM locked
      WHERE t.token_hash = ${tokenHash} AND t.grant_id = locked.id AND t.kind = 'refresh'
        AND t.rotated_at IS NULL AND t.revoked_at IS NULL AND t.forked_at IS NULL AND t.expires_at > ${now}::bigint
      RETURNING t.grant_id, t.family_id, coalesce(t.scopes, locked.scopes) AS scopes
    ),
    minted AS (
      INSERT INTO oauth_tokens (token_hash, grant_id, family_id, kind, scopes, created_at, expires_at)
      SELECT pair.token_hash, rotated.grant_id, rotated.family_id, pair.kind, rotated.scopes,
             ${now}::bigint, pair.expires_at
      FROM rotated,
           (VALUES (${pair.access.hash}, 'access', ${pair.access.expiresAt}::bigint),
                   (${pair.refresh.hash}, 'refresh', ${pair.refresh.expiresAt}::bigint))
             AS pair (token_hash, kind, expires_at)
    )
    SELECT scopes FROM rotated`,
  );
  return row?.[0] as string | undefined;
}

/**
 * SQLite: one transaction (it holds the database's one write lock: nothing else writes until it ends)
 * of two statements, the conditional UPDATE with every condition in it, then the pair.
 */
function inOneTransaction(
  db: Store,
  tokenHash: string,
  clientId: string,
  now: number,
  pair: Pair,
): Promise<string | undefined> {
  return db.transaction(async (tx) => {
    const [rotated] = await statementRows(tx, sqliteRotation(tokenHash, clientId, now));
    if (!rotated) return undefined;
    const [grantId, familyId, scopes] = rotated as [string, string, string];
    await statementRows(
      tx,
      sql`INSERT INTO oauth_tokens (token_hash, grant_id, family_id, kind, scopes, created_at, expires_at)
          VALUES (${pair.access.hash}, ${grantId}, ${familyId}, 'access', ${scopes}, ${now}, ${pair.access.expiresAt}),
                 (${pair.refresh.hash}, ${grantId}, ${familyId}, 'refresh', ${scopes}, ${now}, ${pair.refresh.expiresAt})`,
    );
    return scopes;
  });
}

/**
 * The grant is found by its key from the token row (correlated), not among every grant of a client
 * that thousands may use; refresh tokens minted before families carried scopes get the grant's.
 */
function sqliteRotation(tokenHash: string, clientId: string, now: number): SQL {
  return sql`
    UPDATE oauth_tokens SET rotated_at = ${now}
    WHERE token_hash = ${tokenHash} AND kind = 'refresh'
      AND rotated_at IS NULL AND revoked_at IS NULL AND forked_at IS NULL AND expires_at > ${now}
      AND EXISTS (SELECT 1 FROM oauth_grants g
                  WHERE g.id = oauth_tokens.grant_id AND g.client_id = ${clientId} AND g.revoked_at IS NULL)
    RETURNING grant_id, family_id,
      coalesce(scopes, (SELECT g.scopes FROM oauth_grants g WHERE g.id = oauth_tokens.grant_id))`;
}
