import { sql } from 'drizzle-orm';
import { deleteInBatches } from '../db/batches.js';
import type { Db } from '../db/client.js';
import { auditEvents } from '../db/schema/index.js';

const DAY_MS = 24 * 3600 * 1000;

/** AUDIT_RETENTION_DAYS' default: audit rows are kept a year unless configured otherwise. */
export const DEFAULT_AUDIT_RETENTION_DAYS = 365;

/** Deletes audit rows older than `retentionDays`, in small batches (housekeeping). */
export function purgeAuditEvents(db: Db, retentionDays: number, now = Date.now()): number {
  const cutoff = now - retentionDays * DAY_MS;
  return deleteInBatches(
    (batch) =>
      db
        .delete(auditEvents)
        .where(sql`rowid IN (SELECT rowid FROM audit_events WHERE at < ${cutoff} LIMIT ${batch})`)
        .run().changes,
  );
}
