import { type AuditWriter, recordAudit } from '../audit/record.js';
import { metrics } from '../metrics/index.js';

/** Account and credential events of the audit trail (never passwords, tokens or session ids). */
export type AccountEventKind =
  | 'account_created'
  | 'sign_in'
  | 'sign_in_failed'
  | 'sign_in_throttled'
  | 'signed_out_everywhere'
  | 'password_changed'
  | 'password_change_failed'
  | 'credential_linked'
  | 'credential_removed';

export function recordAccountEvent(
  db: AuditWriter,
  event: {
    kind: AccountEventKind;
    userId?: string | null;
    workspaceId?: string | null;
    status?: string;
    detail?: Record<string, string | number | boolean | null>;
  },
  now = Date.now(),
): Promise<void> {
  metrics.countAccountEvent(event.kind);
  return recordAudit(
    db,
    {
      kind: event.kind,
      userId: event.userId ?? null,
      workspaceId: event.workspaceId ?? null,
      status: event.status ?? 'ok',
      detail: event.detail ?? null,
    },
    now,
  );
}
