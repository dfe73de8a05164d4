import { and, asc, eq, inArray, isNotNull, lt, notExists, or, sql } from 'drizzle-orm';
import { BatchSize, deleteInBatches, PURGE_BATCH, yieldToOthers } from '../db/batches.js';
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
 * Deletes expired codes and tokens (a day after their end), grants with no token left, idle DCR clients
 * without grants (never a client with live grants: its apps would stop working), and consent decisions whose
 * form has expired. Every batch is a range of an index (never a scan of a table), chosen by key, the same
 * statements on both engines.
 */
export async function purgeExpiredOAuth(db: Store, now = Date.now()): Promise<OAuthPurgeCounts> {
  const cutoff = now - KEEP_EXPIRED_MS;
  const codes = await deleteInBatches(db.engine, (batch) => changed(expiredCodesBatch(db, cutoff, batch)));
  const { tokens, grants } = await purgeTokensAndGrants(db, cutoff);
  const clients = await purgeIdleClients(db, now);
  const decisions = await purgeDecisions(db, now);
  return { codes, tokens, grants, clients, decisions };
}

/** Deletes a batch of codes expired before `cutoff` (codes_expires_idx). */
export function expiredCodesBatch(db: Store, cutoff: number, batch: number) {
  const { oauthCodes: c } = db.t;
  return db.orm
    .delete(c)
    .where(
      inArray(
        c.codeHash,
        db.orm.select({ codeHash: c.codeHash }).from(c).where(lt(c.expiresAt, cutoff)).limit(batch),
      ),
    )
    .returning({ codeHash: c.codeHash });
}

/** Deletes a batch of tokens expired, or revoked, before `cutoff`; returns their grants' ids. */
export function expiredTokensBatch(db: Store, which: 'expired' | 'revoked', cutoff: number, batch: number) {
  const { oauthTokens: t } = db.t;
  const range =
    which === 'expired' ? lt(t.expiresAt, cutoff) : and(isNotNull(t.revokedAt), lt(t.revokedAt, cutoff));
  return db.orm
    .delete(t)
    .where(inArray(t.tokenHash, db.orm.select({ tokenHash: t.tokenHash }).from(t).where(range).limit(batch)))
    .returning({ grantId: t.grantId });
}

/**
 * Tokens expired, or revoked, over a day ago (one index range each: tokens_expires_idx,
 * tokens_revoked_idx), a batch at a time; and with each batch, in the same transaction, the grants it
 * left without a token. A grant loses its last token only here, so the deleted tokens' grants are the
 * only ones to look at: no anti-join over every grant.
 */
async function purgeTokensAndGrants(db: Store, cutoff: number): Promise<{ tokens: number; grants: number }> {
  let tokens = 0;
  let grants = 0;
  for (const which of ['expired', 'revoked'] as const) {
    const size = new BatchSize(db.engine);
    for (;;) {
      const asked = size.current;
      const batch = await size.run((n) =>
        db.transaction(async (tx) => {
          const gone = await expiredTokensBatch(tx, which, cutoff, n);
          const left = await deleteTokenlessGrants(tx, [...new Set(gone.map((g) => g.grantId))], cutoff);
          return { tokens: gone.length, grants: left };
        }),
      );
      tokens += batch.tokens;
      grants += batch.grants;
      if (batch.tokens < asked) break;
      await yieldToOthers();
    }
  }
  return { tokens, grants };
}

/** Of these grants, deletes those with no token left, created or revoked over a day ago. */
function deleteTokenlessGrants(db: Store, ids: string[], cutoff: number): Promise<number> {
  return ids.length ? changed(tokenlessGrants(db, ids, cutoff)) : Promise.resolve(0);
}

/** The delete of deleteTokenlessGrants: by primary key, each checked through tokens_grant_idx. */
export function tokenlessGrants(db: Store, ids: string[], cutoff: number) {
  const { oauthGrants: g, oauthTokens: t } = db.t;
  return db.orm
    .delete(g)
    .where(
      and(
        inArray(g.id, ids),
        notExists(db.orm.select({ one: sql`1` }).from(t).where(eq(t.grantId, g.id))),
        or(lt(g.createdAt, cutoff), and(isNotNull(g.revokedAt), lt(g.revokedAt, cutoff))),
      ),
    )
    .returning({ id: g.id });
}

/**
 * Clients past their expiry with no grant. The expired ones are read in (expires_at, id) order, a
 * batch at a time, so those kept (an app idle but still connected somewhere) are read once per pass.
 */
async function purgeIdleClients(db: Store, now: number): Promise<number> {
  let after: ClientKey | null = null;
  let purged = 0;
  for (;;) {
    const window = await expiredClientsWindow(db, now, after, PURGE_BATCH);
    if (window.length) {
      const gone = await idleClients(
        db,
        window.map((w) => w.id),
        now,
      );
      for (const { id } of gone) await db.invalidate(clientSubject(id));
      purged += gone.length;
    }
    const last = window.at(-1);
    if (!last || window.length < PURGE_BATCH) return purged;
    after = { expiresAt: last.expiresAt as number, id: last.id };
    await yieldToOthers();
  }
}

type ClientKey = { expiresAt: number; id: string };

/** The next `batch` clients expired before `now`, after `after` in (expires_at, id) order (clients_expires_idx). */
export function expiredClientsWindow(db: Store, now: number, after: ClientKey | null, batch: number) {
  const { oauthClients: c } = db.t;
  return db.orm
    .select({ id: c.id, expiresAt: c.expiresAt })
    .from(c)
    .where(
      and(
        lt(c.expiresAt, now),
        after ? sql`(${c.expiresAt}, ${c.id}) > (${after.expiresAt}, ${after.id})` : undefined,
      ),
    )
    .orderBy(asc(c.expiresAt), asc(c.id))
    .limit(batch);
}

/** Deletes those of these clients still expired and without a grant (grants_client_idx). */
export function idleClients(db: Store, ids: string[], now: number) {
  const { oauthClients: c, oauthGrants: g } = db.t;
  return db.orm
    .delete(c)
    .where(
      and(
        inArray(c.id, ids),
        lt(c.expiresAt, now),
        notExists(db.orm.select({ one: sql`1` }).from(g).where(eq(g.clientId, c.id))),
      ),
    )
    .returning({ id: c.id });
}
