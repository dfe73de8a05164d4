import { and, isNotNull, lt, notInArray, or, sql } from 'drizzle-orm';
import { deleteInBatches } from '../db/batches.js';
import type { Db } from '../db/client.js';
import { oauthClients, oauthCodes, oauthGrants, oauthTokens } from '../db/schema/index.js';
import { purgeDecisions } from './decisions.js';

/** Rows past their use: kept a day for investigation (a replayed code must still be recognised). */
export const KEEP_EXPIRED_MS = 24 * 3600 * 1000;

export interface OAuthPurgeCounts {
  codes: number;
  tokens: number;
  grants: number;
  clients: number;
  /** Consent decisions whose form has expired (decisions.ts). */
  decisions: number;
}

/**
 * Deletes expired codes and tokens (a day after their end), grants with no live token, idle DCR
 * clients without grants (DESIGN.md §4: never a client with live grants), and consent decisions whose
 * form has expired.
 */
export function purgeExpiredOAuth(db: Db, now = Date.now()): OAuthPurgeCounts {
  const cutoff = now - KEEP_EXPIRED_MS;
  const codes = deleteInBatches(
    (batch) =>
      db
        .delete(oauthCodes)
        .where(sql`rowid IN (SELECT rowid FROM oauth_codes WHERE expires_at < ${cutoff} LIMIT ${batch})`)
        .run().changes,
  );
  const tokens = deleteInBatches(
    (batch) =>
      db
        .delete(oauthTokens)
        .where(
          sql`rowid IN (SELECT rowid FROM oauth_tokens WHERE expires_at < ${cutoff} OR (revoked_at IS NOT NULL AND revoked_at < ${cutoff}) LIMIT ${batch})`,
        )
        .run().changes,
  );
  const liveGrantIds = db.select({ id: oauthTokens.grantId }).from(oauthTokens);
  const grants = db
    .delete(oauthGrants)
    .where(
      and(
        notInArray(oauthGrants.id, liveGrantIds),
        or(
          lt(oauthGrants.createdAt, cutoff),
          and(isNotNull(oauthGrants.revokedAt), lt(oauthGrants.revokedAt, cutoff)),
        ),
      ),
    )
    .run().changes;
  const clientsWithGrants = db.select({ id: oauthGrants.clientId }).from(oauthGrants);
  const clients = db
    .delete(oauthClients)
    .where(and(lt(oauthClients.expiresAt, now), notInArray(oauthClients.id, clientsWithGrants)))
    .run().changes;
  const decisions = purgeDecisions(db, now);
  return { codes, tokens, grants, clients, decisions };
}
