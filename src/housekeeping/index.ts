import { purgeExpiredSessions } from '../accounts/sessions.js';
import { DEFAULT_AUDIT_RETENTION_DAYS, purgeAuditEvents } from '../audit/retention.js';
import type { Db } from '../db/client.js';
import type { Logger } from '../logger.js';
import { purgeExpiredOAuth } from '../oauth/purge.js';

export interface PurgeCounts {
  codes: number;
  tokens: number;
  grants: number;
  sessions: number;
  clients: number;
  decisions: number;
  auditEvents: number;
}

export interface PurgeOptions {
  /** Audit rows older than this are deleted (config.auditRetentionDays). */
  auditRetentionDays?: number;
}

/**
 * The periodic clean-up, composed from each part's own purge: expired OAuth codes, tokens, dead grants,
 * idle clients and consent decisions (oauth), expired browser sessions (accounts), audit rows past the
 * retention (audit). It lives apart from those parts so none of them imports another for it.
 */
export function purgeExpired(db: Db, now = Date.now(), options: PurgeOptions = {}): PurgeCounts {
  const oauth = purgeExpiredOAuth(db, now);
  const sessions = purgeExpiredSessions(db, now);
  const auditEvents = purgeAuditEvents(db, options.auditRetentionDays ?? DEFAULT_AUDIT_RETENTION_DAYS, now);
  return { ...oauth, sessions, auditEvents };
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
