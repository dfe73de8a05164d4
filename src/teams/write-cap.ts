import { and, count, eq, gte, lt } from 'drizzle-orm';
import { toolCallCountQuery } from '../audit/tool-usage.js';
import type { Db } from '../db/client.js';
import { workspaceMembers, writeReservations } from '../db/schema/index.js';

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
  return toolCallCountQuery(db, {
    workspaceId,
    userId,
    since: startOfUtcMonth(now),
    tools: CREDIT_SPENDING_TOOLS,
    statuses: COUNTED_STATUSES,
  });
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

/** The outcome of asking to spend: a sentence refusing the call, or a reservation to release after it. */
export type WriteReservation = { refusal: string } | { refusal: null; release(): void };

const NOTHING_TO_RELEASE: WriteReservation = { refusal: null, release() {} };

function capSentence(cap: number, used: number, tool: string, now: number): string {
  const d = new Date(now);
  const resets = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1)).toISOString().slice(0, 10);
  return `Monthly limit reached: a workspace admin allows you ${cap} credit-spending call${cap === 1 ? '' : 's'} per month and ${used} ${used === 1 ? 'was' : 'were'} made this month, so ${tool} was not sent upstream. Read tools still work; the limit resets on ${resets} (UTC), or ask a workspace admin to raise it.`;
}

/**
 * The team policy check made just before a credit-spending tool reaches upstream. The cap is read on
 * every call, so an admin's change applies to the very next one. The check and the count are one
 * IMMEDIATE transaction: calls already accepted this month (audit rows with a counted status) plus
 * calls in flight (write_reservations) against the cap, and, when there is room, a reservation row for
 * this call — so 50 concurrent calls with one call left let exactly one through. The caller releases
 * the reservation once the call's audit row is written: from then on that row counts it (or, when
 * upstream refused the call, nothing does). A reservation left by a crash keeps counting until the
 * month ends (its call may have reached upstream).
 *
 * On PostgreSQL the same shape holds with the member's row locked (`SELECT … FOR UPDATE` on
 * workspace_members) for the transaction, which serialises concurrent checks for that member.
 */
export function reserveWriteCall(
  db: Db,
  caller: WriteCapCaller,
  tool: string,
  now = Date.now(),
): WriteReservation {
  if (!isCreditSpendingTool(tool)) return NOTHING_TO_RELEASE;
  const month = startOfUtcMonth(now);
  const member = and(
    eq(writeReservations.workspaceId, caller.workspaceId),
    eq(writeReservations.userId, caller.userId),
  );
  const outcome = db.transaction(
    (tx) => {
      const row = tx
        .select({ cap: workspaceMembers.monthlyWriteCap })
        .from(workspaceMembers)
        .where(
          and(
            eq(workspaceMembers.workspaceId, caller.workspaceId),
            eq(workspaceMembers.userId, caller.userId),
          ),
        )
        .get();
      const cap = row?.cap ?? null;
      if (cap === null) return { refusal: null, id: null };
      // Leftovers of earlier months (a crash between reserve and release) no longer count.
      tx.delete(writeReservations)
        .where(and(member, lt(writeReservations.createdAt, month)))
        .run();
      const inFlight =
        tx
          .select({ n: count() })
          .from(writeReservations)
          .where(and(member, gte(writeReservations.createdAt, month)))
          .get()?.n ?? 0;
      const used = writesThisMonth(tx as unknown as Db, caller.workspaceId, caller.userId, now) + inFlight;
      if (used >= cap) return { refusal: capSentence(cap, used, tool, now), id: null };
      const inserted = tx
        .insert(writeReservations)
        .values({ workspaceId: caller.workspaceId, userId: caller.userId, tool, createdAt: now })
        .returning({ id: writeReservations.id })
        .get();
      return { refusal: null, id: inserted.id };
    },
    { behavior: 'immediate' },
  );
  if (outcome.refusal !== null) return { refusal: outcome.refusal };
  const { id } = outcome;
  if (id === null) return NOTHING_TO_RELEASE;
  let released = false;
  return {
    refusal: null,
    release() {
      if (released) return;
      released = true;
      db.delete(writeReservations).where(eq(writeReservations.id, id)).run();
    },
  };
}
