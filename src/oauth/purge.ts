import { and, inArray, isNotNull, lt, notInArray, or } from 'drizzle-orm';
import { deleteInBatches } from '../db/batches.js';
import { changed, clientSubject, type Store } from '../db/store/index.js';
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
 * form has expired. Batches are chosen by primary key, the same statement on both engines.
 */
export async function purgeExpiredOAuth(db: Store, now = Date.now()): Promise<OAuthPurgeCounts> {
  const { oauthCodes, oauthTokens, oauthGrants, oauthClients } = db.t;
  const cutoff = now - KEEP_EXPIRED_MS;
  const codes = await deleteInBatches((batch) =>
    changed(
      db.orm
        .delete(oauthCodes)
        .where(
          inArray(
            oauthCodes.codeHash,
            db.orm
              .select({ codeHash: oauthCodes.codeHash })
              .from(oauthCodes)
              .where(lt(oauthCodes.expiresAt, cutoff))
              .limit(batch),
          ),
        )
        .returning({ codeHash: oauthCodes.codeHash }),
    ),
  );
  const tokens = await deleteInBatches((batch) =>
    changed(
      db.orm
        .delete(oauthTokens)
        .where(
          inArray(
            oauthTokens.tokenHash,
            db.orm
              .select({ tokenHash: oauthTokens.tokenHash })
              .from(oauthTokens)
              .where(
                or(
                  lt(oauthTokens.expiresAt, cutoff),
                  and(isNotNull(oauthTokens.revokedAt), lt(oauthTokens.revokedAt, cutoff)),
                ),
              )
              .limit(batch),
          ),
        )
        .returning({ tokenHash: oauthTokens.tokenHash }),
    ),
  );
  const liveGrantIds = db.orm.select({ id: oauthTokens.grantId }).from(oauthTokens);
  const grants = await changed(
    db.orm
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
      .returning({ id: oauthGrants.id }),
  );
  const clientsWithGrants = db.orm.select({ id: oauthGrants.clientId }).from(oauthGrants);
  const purgedClients = await db.orm
    .delete(oauthClients)
    .where(and(lt(oauthClients.expiresAt, now), notInArray(oauthClients.id, clientsWithGrants)))
    .returning({ id: oauthClients.id });
  for (const { id } of purgedClients) await db.invalidate(clientSubject(id));
  const clients = purgedClients.length;
  const decisions = await purgeDecisions(db, now);
  return { codes, tokens, grants, clients, decisions };
}
