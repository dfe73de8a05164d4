import { sql } from 'drizzle-orm';
import type { Store } from '../db/store/index.js';
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

/** The tool-call INSERT with placeholders, prepared once per auditor (every tool call writes one). */
function prepareInsert(db: Store) {
  const p = sql.placeholder;
  return db.orm
    .insert(db.t.auditEvents)
    .values({
      at: p('at'),
      kind: 'tool_call',
      workspaceId: p('workspaceId'),
      userId: p('userId'),
      clientId: p('clientId'),
      tool: p('tool'),
      status: p('status'),
      durationMs: p('durationMs'),
      detail: p('detail'),
    })
    .prepare('audit_tool_call');
}

/**
 * One audit_events row per tool call, through a statement prepared once (the query builder's
 * per-call cost is skipped). Resolves once the row is written; a failing insert is logged and never
 * changes the tool result (the promise does not reject).
 */
export function toolCallAuditor(db: Store, logger: Logger): (event: ToolCallAudit) => Promise<void> {
  let insert: ReturnType<typeof prepareInsert> | undefined;
  return async (event) => {
    try {
      insert ??= prepareInsert(db);
      await insert.execute({
        at: Date.now(),
        workspaceId: event.workspaceId,
        userId: event.userId,
        clientId: event.clientId,
        tool: event.tool,
        status: event.status,
        durationMs: Math.round(event.durationMs),
        detail: event.detail ? JSON.stringify(event.detail) : null,
      });
    } catch (err) {
      logger.error({ err, tool: event.tool }, 'audit insert failed');
    }
  };
}
