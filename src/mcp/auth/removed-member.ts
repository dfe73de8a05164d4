import { hasRecentEvent } from '../../audit/query.js';
import { recordAudit } from '../../audit/record.js';
import type { Store } from '../../db/store/index.js';

/** A removed member's app refused again within this long is not audited again. */
const REFUSAL_AUDIT_INTERVAL_MS = 60_000;

/**
 * An audit event for a removed member's app knocking (every refusal is audited), at most
 * one a minute per person and app, so a client retrying in a loop cannot fill the trail (the check
 * reads the trail through its (user, at) index; two instances racing may both write, which is harmless).
 */
export async function recordRemovedMemberRefusal(
  db: Store,
  row: { userId: string; workspaceId: string; clientId: string },
  now: number,
): Promise<void> {
  const recent = await hasRecentEvent(
    db,
    { kind: 'access_refused', userId: row.userId, clientId: row.clientId, workspaceId: row.workspaceId },
    now - REFUSAL_AUDIT_INTERVAL_MS,
  );
  if (recent) return;
  await recordAudit(
    db,
    {
      kind: 'access_refused',
      workspaceId: row.workspaceId,
      userId: row.userId,
      clientId: row.clientId,
      status: 'refused',
      detail: { reason: 'member_removed' },
    },
    now,
  );
}
