import { and, isNotNull, lt, notInArray, or, sql } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { oauthClients, oauthCodes, oauthGrants, oauthTokens, sessions } from '../db/schema/index.js';
import type { Logger } from '../logger.js';
import { purgeAuditEvents } from '../teams/audit-log.js';

/** Rows past their use: kept a day for investigation (a replayed code must still be recognised). */
const KEEP_EXPIRED_MS = 24 * 3600 * 1000;
const BATCH = 500;

export interface PurgeCounts {
  codes: number;
  tokens: number;
  grants: number;
  sessions: number;
  clients: number;
  auditEvents: number;
}

/** AUDIT_RETENTION_DAYS' default: audit rows are kept a year unless configured otherwise. */
export const DEFAULT_AUDIT_RETENTION_DAYS = 365;

export interface PurgeOptions {
  /** Audit rows older than this are deleted (config.auditRetentionDays). */
  auditRetentionDays?: number;
}

/**
 * Deletes expired codes, tokens, sessions, grants with no live token, idle DCR clients without
 * live grants (DESIGN.md §4: never a client with live grants), and audit rows older than the
 * retention. Small batches, so a request waiting on the write lock waits for one batch at most.
 */
export function purgeExpired(db: Db, now = Date.now(), options: PurgeOptions = {}): PurgeCounts {
  const cutoff = now - KEEP_EXPIRED_MS;
  const batched = (run: () => number) => {
    let total = 0;
    for (;;) {
      const n = run();
      total += n;
      if (n < BATCH) return total;
    }
  };
  const codes = batched(
    () =>
      db
        .delete(oauthCodes)
        .where(sql`rowid IN (SELECT rowid FROM oauth_codes WHERE expires_at < ${cutoff} LIMIT ${BATCH})`)
        .run().changes,
  );
  const tokens = batched(
    () =>
      db
        .delete(oauthTokens)
        .where(
          sql`rowid IN (SELECT rowid FROM oauth_tokens WHERE expires_at < ${cutoff} OR (revoked_at IS NOT NULL AND revoked_at < ${cutoff}) LIMIT ${BATCH})`,
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
  const expiredSessions = batched(
    () =>
      db
        .delete(sessions)
        .where(sql`rowid IN (SELECT rowid FROM sessions WHERE expires_at < ${now} LIMIT ${BATCH})`)
        .run().changes,
  );
  const clientsWithGrants = db.select({ id: oauthGrants.clientId }).from(oauthGrants);
  const clients = db
    .delete(oauthClients)
    .where(and(lt(oauthClients.expiresAt, now), notInArray(oauthClients.id, clientsWithGrants)))
    .run().changes;
  const audit = purgeAuditEvents(db, options.auditRetentionDays ?? DEFAULT_AUDIT_RETENTION_DAYS, now, BATCH);
  return { codes, tokens, grants, sessions: expiredSessions, clients, auditEvents: audit };
}

/** Runs purgeExpired every `intervalMs` on an unref'd timer; returns a stop function. */
export function startHousekeeping(
  db: Db,
  logger: Logger,
  intervalMs = 15 * 60_000,
  options: PurgeOptions = {},
): () => void {
  const timer = setInterval(() => {
    try {
      const counts = purgeExpired(db, Date.now(), options);
      if (Object.values(counts).some((n) => n > 0)) logger.info({ purged: counts }, 'housekeeping');
    } catch (error) {
      logger.error({ err: error }, 'housekeeping failed');
    }
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
