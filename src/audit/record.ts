import type { Store } from '../db/store/index.js';

/**
 * One row of the audit trail. Ids are plain text (not foreign keys) so the trail outlives what it
 * names; `detail` is a small object of non-secret facts — never tool arguments, tokens, passwords,
 * invite links or session ids.
 */
export interface AuditEvent {
  /** e.g. tool_call, sign_in, grant_created, member_policy_changed (see the writers' kind unions). */
  kind: string;
  workspaceId?: string | null;
  /** Who acted (the signed-in person, or the grant's user for tool calls). */
  userId?: string | null;
  clientId?: string | null;
  tool?: string | null;
  /** Outcome: ok, error, refused, or the upstream HTTP status. */
  status?: string | null;
  durationMs?: number | null;
  detail?: Record<string, unknown> | null;
}

/** The database, or a transaction inside it (the row then commits with it). */
export type AuditWriter = Store;

/** The one writer of audit_events rows (tool calls use its prepared twin in tool-calls.ts). */
export async function recordAudit(db: AuditWriter, event: AuditEvent, now = Date.now()): Promise<void> {
  await db.orm.insert(db.t.auditEvents).values({
    at: now,
    kind: event.kind,
    workspaceId: event.workspaceId ?? null,
    userId: event.userId ?? null,
    clientId: event.clientId ?? null,
    tool: event.tool ?? null,
    status: event.status ?? 'ok',
    durationMs:
      event.durationMs === undefined || event.durationMs === null ? null : Math.round(event.durationMs),
    detail: event.detail ? JSON.stringify(event.detail) : null,
  });
}
