import { and, count, eq, gte, lt } from 'drizzle-orm';
import { toolCallCount, toolCallCountQuery } from '../audit/tool-usage.js';
import { first, forUpdate, type Store } from '../db/store/index.js';

/**
 * The names of the tools that spend upstream credits (what a member's monthly write cap counts): each
 * tool's definition says so (src/mcp/tools: `spendsCredits`), and whoever asks passes the list in, since
 * this part may not import the tools.
 */
export type CreditSpendingTools = readonly string[];

/** Audit statuses of a call that upstream accepted (and so may have charged for). */
export const COUNTED_STATUSES = ['ok', 'cancelled'] as const;

/** Midnight UTC on the first day of `now`'s month. */
export function startOfUtcMonth(now: number): number {
  const d = new Date(now);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
}

/** The query behind writesThisMonth (exported so tests can EXPLAIN it). */
export function writesThisMonthQuery(
  db: Store,
  workspaceId: string,
  userId: string,
  tools: CreditSpendingTools,
  now = Date.now(),
) {
  return toolCallCountQuery(db, {
    workspaceId,
    userId,
    since: startOfUtcMonth(now),
    tools,
    statuses: COUNTED_STATUSES,
  });
}

/**
 * Credit-spending tool calls the member made in the workspace this UTC month that upstream accepted.
 * Uses the audit trail's (user_id, at) index: a range scan over the member's rows of this month.
 */
export function writesThisMonth(
  db: Store,
  workspaceId: string,
  userId: string,
  tools: CreditSpendingTools,
  now = Date.now(),
): Promise<number> {
  return toolCallCount(db, {
    workspaceId,
    userId,
    since: startOfUtcMonth(now),
    tools,
    statuses: COUNTED_STATUSES,
  });
}

export interface WriteCapCaller {
  userId: string;
  workspaceId: string;
}

/**
 * The outcome of asking to spend: a sentence refusing the call, or a reservation to release once the
 * call's audit row is written.
 */
export type WriteReservation = { refusal: string } | { refusal: null; release(): Promise<void> };

const NOTHING_TO_RELEASE: WriteReservation = { refusal: null, release: async () => {} };

function capSentence(cap: number, used: number, tool: string, now: number): string {
  const d = new Date(now);
  const resets = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1)).toISOString().slice(0, 10);
  return `Monthly limit reached: a workspace admin allows you ${cap} credit-spending call${cap === 1 ? '' : 's'} per month and ${used} ${used === 1 ? 'was' : 'were'} made this month, so ${tool} was not sent upstream. Read tools still work; the limit resets on ${resets} (UTC), or ask a workspace admin to raise it.`;
}

/**
 * The team policy check made just before a credit-spending tool reaches upstream. The cap is read on
 * every call, so an admin's change applies to the very next one. The check and the count are one
 * transaction that first locks the member's workspace_members row (on SQLite the transaction holds the
 * only write lock anyway): concurrent checks for one member, on any number of instances, run one after
 * another. Inside it, calls in flight (write_reservations) and calls already accepted this month
 * (audit rows with a counted status) are counted against the cap, and, when there is room, a
 * reservation row is added for this call — so 50 concurrent calls with one call left let exactly one
 * through. The caller releases the reservation once the call's audit row is written: from then on that
 * row counts it (or, when upstream refused the call, nothing does). A reservation left by a crash keeps
 * counting until the month ends (its call may have reached upstream).
 *
 * The reservations are counted before the audit rows, in that order on purpose: a call finishing
 * between the two statements (its audit row written, then its reservation deleted, neither under the
 * member lock) is then counted twice, never zero times, so the cap errs on the side of refusing.
 */
export async function reserveWriteCall(
  db: Store,
  caller: WriteCapCaller,
  tool: { name: string; spendsCredits: boolean },
  spendingTools: CreditSpendingTools,
  now = Date.now(),
): Promise<WriteReservation> {
  if (!tool.spendsCredits) return NOTHING_TO_RELEASE;
  const month = startOfUtcMonth(now);
  const outcome = await db.transaction(async (tx) => {
    const { workspaceMembers, writeReservations } = tx.t;
    const member = and(
      eq(writeReservations.workspaceId, caller.workspaceId),
      eq(writeReservations.userId, caller.userId),
    );
    const row = await first(
      forUpdate(
        tx,
        tx.orm
          .select({ cap: workspaceMembers.monthlyWriteCap })
          .from(workspaceMembers)
          .where(
            and(
              eq(workspaceMembers.workspaceId, caller.workspaceId),
              eq(workspaceMembers.userId, caller.userId),
            ),
          ),
      ),
    );
    const cap = row?.cap ?? null;
    if (cap === null) return { refusal: null, id: null };
    // Leftovers of earlier months (a crash between reserve and release) no longer count.
    await tx.orm.delete(writeReservations).where(and(member, lt(writeReservations.createdAt, month)));
    const inFlight =
      (
        await first(
          tx.orm
            .select({ n: count() })
            .from(writeReservations)
            .where(and(member, gte(writeReservations.createdAt, month))),
        )
      )?.n ?? 0;
    const used =
      (await writesThisMonth(tx, caller.workspaceId, caller.userId, spendingTools, now)) + inFlight;
    if (used >= cap) return { refusal: capSentence(cap, used, tool.name, now), id: null };
    const [inserted] = await tx.orm
      .insert(writeReservations)
      .values({ workspaceId: caller.workspaceId, userId: caller.userId, tool: tool.name, createdAt: now })
      .returning({ id: writeReservations.id });
    return { refusal: null, id: inserted?.id ?? null };
  });
  if (outcome.refusal !== null) return { refusal: outcome.refusal };
  const { id } = outcome;
  if (id === null) return NOTHING_TO_RELEASE;
  let released = false;
  return {
    refusal: null,
    async release() {
      if (released) return;
      released = true;
      const { writeReservations } = db.t;
      await db.orm.delete(writeReservations).where(eq(writeReservations.id, id));
    },
  };
}
