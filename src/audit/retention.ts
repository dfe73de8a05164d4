import { inArray, lt } from 'drizzle-orm';
import { deleteInBatches } from '../db/batches.js';
import { changed, type Store } from '../db/store/index.js';

const DAY_MS = 24 * 3600 * 1000;

/** AUDIT_RETENTION_DAYS' default: audit rows are kept a year unless configured otherwise. */
export const DEFAULT_AUDIT_RETENTION_DAYS = 365;

/** Deletes audit rows older than `retentionDays`, in small batches (housekeeping). */
export function purgeAuditEvents(db: Store, retentionDays: number, now = Date.now()): Promise<number> {
  const cutoff = now - retentionDays * DAY_MS;
  return deleteInBatches(db.engine, (batch) => changed(oldAuditBatch(db, cutoff, batch)));
}

/** Deletes a batch of audit rows older than `cutoff`, the oldest first (audit_at_idx). */
export function oldAuditBatch(db: Store, cutoff: number, batch: number) {
  const { auditEvents: a } = db.t;
  return db.orm
    .delete(a)
    .where(inArray(a.id, db.orm.select({ id: a.id }).from(a).where(lt(a.at, cutoff)).limit(batch)))
    .returning({ id: a.id });
}
