import type { Db } from '../db/client.js';
import { auditEvents } from '../db/schema/index.js';
import { metrics } from '../metrics/index.js';

/** Account and credential events of the audit trail (never passwords, tokens or session ids). */
export type AccountEventKind =
  | 'account_created'
  | 'sign_in'
  | 'sign_in_failed'
  | 'sign_in_throttled'
  | 'signed_out_everywhere'
  | 'credential_linked'
  | 'credential_removed';

type Runner = Pick<Db, 'insert'>;

export function recordAccountEvent(
  db: Runner,
  event: {
    kind: AccountEventKind;
    userId?: string | null;
    workspaceId?: string | null;
    status?: string;
    detail?: Record<string, string | number | boolean | null>;
  },
  now = Date.now(),
): void {
  metrics.countAccountEvent(event.kind);
  db.insert(auditEvents)
    .values({
      at: now,
      kind: event.kind,
      userId: event.userId ?? null,
      workspaceId: event.workspaceId ?? null,
      status: event.status ?? 'ok',
      detail: event.detail ? JSON.stringify(event.detail) : null,
    })
    .run();
}
