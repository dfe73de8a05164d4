import { and, count, eq, gte, inArray, sql } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { auditEvents, users } from '../db/schema/index.js';

const DAY_MS = 24 * 3600 * 1000;

export interface ToolUsageRow {
  day: string;
  userId: string | null;
  userEmail: string | null;
  tool: string;
  calls: number;
  failed: number;
}

/** Tool calls per UTC day, member and tool over the last `days` days, from the audit trail. */
export function toolCallsByDay(db: Db, workspaceId: string, days: number, now = Date.now()): ToolUsageRow[] {
  const since = Math.floor(now / DAY_MS) * DAY_MS - (days - 1) * DAY_MS;
  const day = sql<string>`strftime('%Y-%m-%d', ${auditEvents.at} / 1000, 'unixepoch')`;
  return db
    .select({
      day,
      userId: auditEvents.userId,
      userEmail: users.email,
      tool: sql<string>`${auditEvents.tool}`,
      calls: sql<number>`count(*)`,
      failed: sql<number>`sum(case when ${auditEvents.status} = 'ok' then 0 else 1 end)`,
    })
    .from(auditEvents)
    .leftJoin(users, eq(users.id, auditEvents.userId))
    .where(
      and(
        eq(auditEvents.workspaceId, workspaceId),
        gte(auditEvents.at, since),
        eq(auditEvents.kind, 'tool_call'),
      ),
    )
    .groupBy(day, auditEvents.userId, auditEvents.tool)
    .orderBy(sql`1 desc`, users.email, auditEvents.tool)
    .all();
}

export interface ToolCallCount {
  workspaceId: string;
  userId: string;
  /** Epoch ms, inclusive. */
  since: number;
  tools: readonly string[];
  statuses: readonly string[];
}

/**
 * How many of a member's tool calls in a workspace since `since` were of these tools and ended with
 * these statuses (the write cap's count). A range scan of the (user_id, at) index over the member's rows.
 */
export function toolCallCountQuery(db: Db, q: ToolCallCount) {
  return db
    .select({ n: count() })
    .from(auditEvents)
    .where(
      and(
        eq(auditEvents.userId, q.userId),
        gte(auditEvents.at, q.since),
        eq(auditEvents.kind, 'tool_call'),
        eq(auditEvents.workspaceId, q.workspaceId),
        inArray(auditEvents.tool, [...q.tools]),
        inArray(auditEvents.status, [...q.statuses]),
      ),
    );
}

/**
 * toolCallCountQuery for every member of the workspace at once: member id → count (members with
 * none are absent). The team page's "used this month" beside each cap.
 */
export function toolCallCountsByUser(db: Db, q: Omit<ToolCallCount, 'userId'>): Map<string, number> {
  const rows = db
    .select({ userId: auditEvents.userId, n: count() })
    .from(auditEvents)
    .where(
      and(
        eq(auditEvents.workspaceId, q.workspaceId),
        gte(auditEvents.at, q.since),
        eq(auditEvents.kind, 'tool_call'),
        inArray(auditEvents.tool, [...q.tools]),
        inArray(auditEvents.status, [...q.statuses]),
      ),
    )
    .groupBy(auditEvents.userId)
    .all();
  return new Map(rows.flatMap((r) => (r.userId === null ? [] : [[r.userId, r.n] as const])));
}
