import { type SQL, sql } from 'drizzle-orm';
import { type Store, statementRows } from '../db/store/index.js';
import type { Logger } from '../logger.js';
import type { ToolCallAudit } from './tool-calls.js';

/** At most this many rows wait, and for at most this long, before they are written in one statement. */
const BATCH_ROWS = 200;
const BATCH_MS = 250;

export interface BatchedAuditor {
  /** Queues the row (at `at`, epoch ms); it is written within BATCH_MS (a failing write is logged). */
  record(event: ToolCallAudit, at?: number): void;
  /** Writes what waits now (at shutdown). */
  flush(): Promise<void>;
}

/**
 * Tool-call audit rows written in batches: one multi-row INSERT for up to 200 rows or 250 ms of them.
 * For requests a client repeats every few seconds and whose answer does not wait for its row (tasks/get
 * of the tasks extension): one INSERT each, its own transaction on SQLite, would be most of such a
 * request's cost. A row is written at most 250 ms late, or lost if the process is killed
 * outright in that time (it is flushed at a graceful stop).
 */
export function batchedToolCallAuditor(db: Store, logger: Logger): BatchedAuditor {
  let pending: SQL[] = [];
  let timer: NodeJS.Timeout | null = null;
  let writing: Promise<void> = Promise.resolve();

  const flush = (): Promise<void> => {
    if (timer) clearTimeout(timer);
    timer = null;
    if (pending.length === 0) return writing;
    const rows = pending;
    pending = [];
    // SQL text, not the query builder: building a 200-row INSERT cost more than writing it (ARCHITECTURE.md,
    // "One typing dialect": hot paths the builder cannot say cheaply).
    const insert = sql`INSERT INTO audit_events (at, kind, workspace_id, user_id, client_id, tool, status, duration_ms, detail) VALUES ${sql.join(rows, sql`, `)}`;
    writing = writing
      .then(() => statementRows(db, insert))
      .then(
        () => {},
        (err: unknown) => logger.error({ err, rows: rows.length }, 'audit insert failed'),
      );
    return writing;
  };

  return {
    record(event, at = Date.now()) {
      const detail = event.detail ? JSON.stringify(event.detail) : null;
      pending.push(
        sql`(${at}, 'tool_call', ${event.workspaceId}, ${event.userId}, ${event.clientId}, ${event.tool}, ${event.status}, ${Math.round(event.durationMs)}, ${detail})`,
      );
      if (pending.length >= BATCH_ROWS) void flush();
      else if (!timer) {
        timer = setTimeout(() => void flush(), BATCH_MS);
        timer.unref();
      }
    },
    flush,
  };
}
