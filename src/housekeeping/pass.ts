import { sql } from 'drizzle-orm';
import { purgeRateLimits } from '../accounts/rate-limits.js';
import { purgeExpiredSessions } from '../accounts/sessions.js';
import { DEFAULT_AUDIT_RETENTION_DAYS, purgeAuditEvents } from '../audit/retention.js';
import { type Store, statementRows } from '../db/store/index.js';
import { purgeWaitingCalls } from '../mcp/cancellation/call-directory.js';
import { purgeRecentSubmits } from '../mcp/reuse/recent-submits.js';
import { purgeTasks } from '../mcp/tasks/task-store.js';
import { purgeExpiredOAuth } from '../oauth/purge.js';

export interface PurgeCounts {
  codes: number;
  tokens: number;
  grants: number;
  sessions: number;
  clients: number;
  decisions: number;
  auditEvents: number;
  rateLimits: number;
  waitingCalls: number;
  recentSubmits: number;
  tasks: number;
}

export interface PurgeOptions {
  /** Audit rows older than this are deleted (config.auditRetentionDays). */
  auditRetentionDays?: number;
}

/**
 * The periodic clean-up, composed from each part's own purge: expired OAuth codes, tokens, dead grants,
 * idle clients and consent decisions (oauth), expired browser sessions and rate-limit counters
 * (accounts), audit rows past the retention (audit), waiting-call rows a stopped instance left,
 * submits past their reuse and tasks past their time to live (mcp).
 * It lives apart from those parts so none of them imports another for it. Every delete is idempotent,
 * so instances sharing a database may all run it.
 */
export async function purgeExpired(
  db: Store,
  now = Date.now(),
  options: PurgeOptions = {},
): Promise<PurgeCounts> {
  const oauth = await purgeExpiredOAuth(db, now);
  const sessions = await purgeExpiredSessions(db, now);
  const auditEvents = await purgeAuditEvents(
    db,
    options.auditRetentionDays ?? DEFAULT_AUDIT_RETENTION_DAYS,
    now,
  );
  const rateLimits = await purgeRateLimits(db, now);
  const waitingCalls = await purgeWaitingCalls(db, now);
  const recentSubmits = await purgeRecentSubmits(db, now);
  const tasks = await purgeTasks(db, now);
  await keepPlannerInformed(db);
  return { ...oauth, sessions, auditEvents, rateLimits, waitingCalls, recentSubmits, tasks };
}

/**
 * SQLite gathers no statistics by itself, and without them its planner can prefer an index that
 * avoids a sort over one that finds the few rows asked for. `PRAGMA optimize` analyzes only the
 * tables whose size changed a lot since, with a bounded sample (https://sqlite.org/pragma.html#pragma_optimize).
 * PostgreSQL's autovacuum analyzes on its own.
 */
async function keepPlannerInformed(db: Store): Promise<void> {
  if (db.engine !== 'sqlite') return;
  // Mask 0x10003: every table (0x10000), the tables worth analyzing (0x02), listed rather than
  // analyzed (0x01). Each listed table's indexes are then analyzed one by one
  // (https://sqlite.org/lang_analyze.html), each its own write: a request that writes meanwhile waits
  // for one index's sample, not for a large table's every index.
  const planned = await statementRows(db, sql`PRAGMA optimize(0x10003)`);
  for (const [statement] of planned) {
    const table =
      typeof statement === 'string' ? /^ANALYZE "main"\."(\w+)"$/.exec(statement)?.[1] : undefined;
    if (!table) continue;
    const indexes = await statementRows(db, sql`SELECT name FROM pragma_index_list(${table})`);
    for (const [index] of indexes) await statementRows(db, sql.raw(`ANALYZE "main"."${String(index)}"`));
  }
}

/** What the server's connection sends a pass in a worker thread (off-thread.ts). */
export interface PassRequest {
  path: string;
  now: number;
  options: PurgeOptions;
  /** The worker connection's page cache, KiB. */
  pageCacheKib: number;
  /** How often the worker checkpoints the WAL, at most. */
  checkpointEveryMs: number;
  /** How much of the WAL file one turn truncates when the pass has ended. */
  walShrinkStepBytes: number;
}

/** Server to worker: the turn asked for is yours. */
export type PassMessage = 'go';
/** Worker to server: a turn asked for, a turn ended, the pass's counts. */
export type WorkerReply = { type: 'turn' } | { type: 'done' } | { type: 'result'; counts: PurgeCounts };
