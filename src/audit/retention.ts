import { inArray, lt } from 'drizzle-orm';
import { deleteInBatches } from '../db/batches.js';
import { changed, type Store } from '../db/store/index.js';

const DAY_MS = 24 * 3600 * 1000;

/** AUDIT_RETENTION_DAYS' default: audit rows are kept a year unless configured otherwise. */
export const DEFAULT_AUDIT_RETENTION_DAYS = 365;

/** Deletes audit rows older than `retentionDays`, in small batches (housekeeping). */
export function purgeAuditEvents(db: Store, retentionDays: number, now = Date.now()): Promise<number> {
  const cutoff = now - retentionDays * DAY_MS;
  const { auditEvents: a } = db.t;
  return deleteInBatches((batch) =>
    changed(
      db.orm
        .delete(a)
        .where(inArray(a.id, db.orm.select({ id: a.id }).from(a).where(lt(a.at, cutoff)).limit(batch)))
        .returning({ id: a.id }),
    ),
  );
}
