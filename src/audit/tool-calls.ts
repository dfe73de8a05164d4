import type { Statement } from 'better-sqlite3';
import type { Db } from '../db/client.js';
import type { Logger } from '../logger.js';

export interface ToolCallAudit {
  userId: string | null;
  workspaceId: string | null;
  clientId: string | null;
  tool: string;
  /** ok, error, invalid, refused, cancelled, or the upstream HTTP status. */
  status: string;
  durationMs: number;
  /** Small non-secret detail (e.g. the error kind); never arguments. */
  detail?: Record<string, unknown>;
}

/**
 * One audit_events row per tool call, through a statement prepared once (every tool call writes one,
 * so the query builder's per-call cost is skipped). A failing insert is logged and never changes the
 * tool result.
 */
export function toolCallAuditor(db: Db, logger: Logger): (event: ToolCallAudit) => void {
  let insert: Statement<unknown[]> | null = null;
  return (event) => {
    try {
      insert ??= db.$client.prepare<unknown[]>(
        `INSERT INTO audit_events (at, kind, workspace_id, user_id, client_id, tool, status, duration_ms, detail)
         VALUES (?, 'tool_call', ?, ?, ?, ?, ?, ?, ?)`,
      );
      insert.run(
        Date.now(),
        event.workspaceId,
        event.userId,
        event.clientId,
        event.tool,
        event.status,
        Math.round(event.durationMs),
        event.detail ? JSON.stringify(event.detail) : null,
      );
    } catch (err) {
      logger.error({ err, tool: event.tool }, 'audit insert failed');
    }
  };
}
