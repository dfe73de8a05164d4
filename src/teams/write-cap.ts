import { and, count, eq, gte, inArray } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { auditEvents, workspaceMembers } from '../db/schema/index.js';

/** The tools that spend upstream credits: what a member's monthly write cap counts and limits. */
export const CREDIT_SPENDING_TOOLS = [
  'submit_keyword_search',
  'submit_user_search',
  'submit_expert_search',
  'start_agent_run',
  'rerun_agent_run',
  'create_agent_schedule',
] as const;

const SPENDING = new Set<string>(CREDIT_SPENDING_TOOLS);

/** Audit statuses of a call that upstream accepted (and so may have charged for). */
export const COUNTED_STATUSES = ['ok', 'cancelled'] as const;

export function isCreditSpendingTool(name: string): boolean {
  return SPENDING.has(name);
}

/** Midnight UTC on the first day of `now`'s month. */
export function startOfUtcMonth(now: number): number {
  const d = new Date(now);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
}

/** The query behind writesThisMonth (exported so tests can EXPLAIN it). */
export function writesThisMonthQuery(db: Db, workspaceId: string, userId: string, now = Date.now()) {
  return db
    .select({ n: count() })
    .from(auditEvents)
    .where(
      and(
        eq(auditEvents.userId, userId),
        gte(auditEvents.at, startOfUtcMonth(now)),
        eq(auditEvents.kind, 'tool_call'),
        eq(auditEvents.workspaceId, workspaceId),
        inArray(auditEvents.tool, [...CREDIT_SPENDING_TOOLS]),
        inArray(auditEvents.status, [...COUNTED_STATUSES]),
      ),
    );
}

/**
 * Credit-spending tool calls the member made in the workspace this UTC month that upstream accepted.
 * Uses the audit trail's (user_id, at) index: a range scan over the member's rows of this month.
 */
export function writesThisMonth(db: Db, workspaceId: string, userId: string, now = Date.now()): number {
  return writesThisMonthQuery(db, workspaceId, userId, now).get()?.n ?? 0;
}

export interface WriteCapCaller {
  userId: string;
  workspaceId: string;
}

/**
 * The team policy check made before a credit-spending tool reaches upstream: null when the call may
 * go ahead, else the sentence the tool answers with (an isError result). Reads the member's cap on
 * every call, so an admin's change applies to the very next call. Calls made concurrently when one
 * call is left may both pass: the cap is a budget guard, not a lock.
 */
export function checkWriteCap(db: Db, caller: WriteCapCaller, tool: string, now = Date.now()): string | null {
  if (!isCreditSpendingTool(tool)) return null;
  const member = db
    .select({ cap: workspaceMembers.monthlyWriteCap })
    .from(workspaceMembers)
    .where(
      and(eq(workspaceMembers.workspaceId, caller.workspaceId), eq(workspaceMembers.userId, caller.userId)),
    )
    .get();
  const cap = member?.cap ?? null;
  if (cap === null) return null;
  const used = writesThisMonth(db, caller.workspaceId, caller.userId, now);
  if (used < cap) return null;
  const resets = new Date(
    startOfUtcMonth(Date.UTC(new Date(now).getUTCFullYear(), new Date(now).getUTCMonth() + 1, 1)),
  )
    .toISOString()
    .slice(0, 10);
  return `Monthly limit reached: a workspace admin allows you ${cap} credit-spending call${cap === 1 ? '' : 's'} per month and ${used} ${used === 1 ? 'was' : 'were'} made this month, so ${tool} was not sent upstream. Read tools still work; the limit resets on ${resets} (UTC), or ask a workspace admin to raise it.`;
}

/** checkWriteCap bound to a database: the hook the MCP tool call path calls before going upstream. */
export function writeCapGuard(db: Db): (caller: WriteCapCaller, tool: string) => string | null {
  return (caller, tool) => checkWriteCap(db, caller, tool);
}
