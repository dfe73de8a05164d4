import { and, count, eq, gte, inArray, sql } from 'drizzle-orm';
import { first, type Store } from '../db/store/index.js';

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
export async function toolCallsByDay(
  db: Store,
  workspaceId: string,
  days: number,
  now = Date.now(),
): Promise<ToolUsageRow[]> {
  const { auditEvents, users } = db.t;
  const since = Math.floor(now / DAY_MS) * DAY_MS - (days - 1) * DAY_MS;
  // The UTC day as a whole number of days since the epoch: integer division on both engines (no
  // date functions, which differ), turned into a date here. The divisor is written into the SQL, not
  // bound: PostgreSQL matches the GROUP BY expression to the selected one only if they are identical.
  // Aggregates come back as numbers only through mapWith (PostgreSQL's count and sum are 64-bit, sent
  // as text).
  const day = sql<number>`(${auditEvents.at} / ${sql.raw(String(DAY_MS))})`.mapWith(Number);
  const rows = await db.orm
    .select({
      day,
      userId: auditEvents.userId,
      userEmail: users.email,
      tool: sql<string>`${auditEvents.tool}`,
      calls: sql<number>`count(*)`.mapWith(Number),
      failed: sql<number>`sum(case when ${auditEvents.status} = 'ok' then 0 else 1 end)`.mapWith(Number),
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
    .groupBy(day, auditEvents.userId, users.email, auditEvents.tool)
    .orderBy(sql`1 desc`, users.email, auditEvents.tool);
  return rows.map((r) => ({ ...r, day: new Date(r.day * DAY_MS).toISOString().slice(0, 10) }));
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
export function toolCallCountQuery(db: Store, q: ToolCallCount) {
  const { auditEvents } = db.t;
  return db.orm
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

/** The count toolCallCountQuery describes. */
export async function toolCallCount(db: Store, q: ToolCallCount): Promise<number> {
  return (await first(toolCallCountQuery(db, q)))?.n ?? 0;
}

/**
 * toolCallCountQuery for every member of the workspace at once: member id → count (members with
 * none are absent). The team page's "used this month" beside each cap.
 */
export async function toolCallCountsByUser(
  db: Store,
  q: Omit<ToolCallCount, 'userId'>,
): Promise<Map<string, number>> {
  const { auditEvents } = db.t;
  const rows = await db.orm
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
    .groupBy(auditEvents.userId);
  return new Map(rows.flatMap((r) => (r.userId === null ? [] : [[r.userId, r.n] as const])));
}
