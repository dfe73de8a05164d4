import { setTimeout as sleep } from 'node:timers/promises';
import { and, eq, isNull, lt, type SQL } from 'drizzle-orm';
import { first, type Store } from '../../db/store/index.js';
import type { Logger } from '../../logger.js';
import { newId } from '../../security/tokens.js';
import { CreateOutcomeUnknown, creating } from '../tools/long-work.js';
import type {
  JobKind,
  LongWork,
  Reused,
  SeenState,
  StartedJob,
  SubmitReuse,
  ToolContext,
} from '../tools/types.js';
import { lookForLostCreate, outcomeUnknown } from './lost-create.js';
import { submitKey } from './submit-key.js';

/** How long after it was last seen running, or seen ended, a submit is reused. */
export const REUSE_WINDOW_MS = 10 * 60_000;
/**
 * How long a reservation holds before another caller may take it over: longer than an upstream create
 * call (its 30 s timeout), renewed before each create, so only a crashed holder's reservation expires.
 */
const RESERVATION_MS = 60_000;
/** How often a caller waiting for another's reservation looks for its id. */
const LOOK_AGAIN_MS = 100;
/** Creates of one submit at most: a second only after a lost one was looked for twice and not found. */
const CREATES = 2;

type Row = {
  keyHash: string;
  kind: string;
  jobId: string | null;
  holder: string | null;
  createdAt: number;
  seenRunningAt: number;
  finishedAt: number | null;
  expiresAt: number;
};

/**
 * Nothing paid twice by accident: a submit identical to one the same upstream user made with the same
 * credential (same tool, same arguments after defaults, relative dates resolved) that is still running
 * or ended with its result less than 10 minutes ago is answered with that search or run, saying so
 * (work seen failed or cancelled is forgotten: a retry must not get the failure back); `force_new: true` asks
 * for a fresh one. Across instances too: the work is keyed in `recent_submits`, and a row is reserved
 * by its unique key before the upstream call, so of parallel identical submits exactly one creates the
 * work and the others wait for its id.
 *
 * "Still running" is what a wait last saw: a row stays reusable for 10 minutes after a wait (any
 * caller's: the submit, a get with `wait`, a task) last saw the work running, or first saw it ended.
 * Work nobody has looked at for 10 minutes is not reused, whether it still runs or not: its result
 * could otherwise be older than the 10 minutes promised.
 */
export class RecentSubmits implements SubmitReuse {
  constructor(
    private readonly db: Store,
    private readonly logger: Logger,
    /** The key of the keyed hash over each submit (derived from SECRET_KEY, the same on every instance). */
    private readonly hashKey: Buffer,
    private readonly now: () => number = Date.now,
  ) {}

  async start<A>(
    tool: string,
    work: LongWork<A>,
    args: A,
    ctx: ToolContext,
  ): Promise<{ job: StartedJob; reused: Reused | null }> {
    const fresh = (args as { force_new?: unknown }).force_new === true;
    const key = submitKey(
      this.hashKey,
      ctx.creds,
      tool,
      work.identity(args, new Date(this.now()).toISOString().slice(0, 10)),
    );
    const holder = newId();
    let found: Row | Claim;
    try {
      found = await this.claimOrWait(key, work.kind, holder, fresh, ctx.signal);
    } catch (error) {
      if (ctx.signal.aborted) throw error;
      // The database cannot say: the work is created as without reuse rather than refused.
      this.logger.warn({ err: error, tool }, 'reuse of identical submits unavailable');
      return { job: await work.start(args, creating(ctx)), reused: null };
    }
    if ('since' in found)
      return { job: await this.create(key, holder, tool, work, args, ctx, found.since), reused: null };
    return {
      job: { id: jobIdOf(work.kind, found.jobId as string) },
      reused: { ageMs: Math.max(0, this.now() - found.createdAt) },
    };
  }

  /**
   * Resolves once noted (callers need not wait: a failure is only logged). Work seen failed is
   * forgotten: the next identical submit creates it anew instead of answering with the failure.
   */
  seen(kind: JobKind, id: string | number, state: SeenState): Promise<void> {
    const { recentSubmits: r } = this.db.t;
    const now = this.now();
    if (state === 'failed')
      return this.db.orm
        .delete(r)
        .where(and(eq(r.kind, kind), eq(r.jobId, String(id))))
        .then(
          () => {},
          (err: unknown) => this.logger.warn({ err, kind }, 'could not forget a failed job'),
        );
    const where = and(eq(r.kind, kind), eq(r.jobId, String(id)), isNull(r.finishedAt));
    const expiresAt = now + REUSE_WINDOW_MS;
    const update = this.db.orm
      .update(r)
      .set(state === 'ended' ? { finishedAt: now, expiresAt } : { seenRunningAt: now, expiresAt })
      .where(where);
    return update.then(
      () => {},
      (err: unknown) => this.logger.warn({ err, kind }, 'could not note a job seen'),
    );
  }

  /**
   * Reserves the key for this caller (a Claim), or finds reusable work under it (its row); waits while
   * another caller's reservation is fresh, and takes over one that is not. A reservation taken over
   * without a job (its holder crashed, or its create's answer was lost) is a Claim with `since`: that
   * create may have made the work, so it is looked for before creating.
   */
  private async claimOrWait(
    key: string,
    kind: JobKind,
    holder: string,
    fresh: boolean,
    signal: AbortSignal,
  ): Promise<Row | Claim> {
    const { recentSubmits: r } = this.db.t;
    for (;;) {
      const now = this.now();
      const reservation = {
        kind,
        jobId: null,
        holder,
        createdAt: now,
        seenRunningAt: now,
        finishedAt: null,
        expiresAt: now + RESERVATION_MS + REUSE_WINDOW_MS,
      };
      if (fresh) {
        // Asked for explicitly: this caller's work replaces whatever the key held.
        await this.db.orm
          .insert(r)
          .values({ keyHash: key, ...reservation })
          .onConflictDoUpdate({ target: r.keyHash, set: reservation });
        return { since: null };
      }
      const inserted = await this.db.orm
        .insert(r)
        .values({ keyHash: key, ...reservation })
        .onConflictDoNothing()
        .returning({ keyHash: r.keyHash });
      if (inserted.length === 1) return { since: null };
      const row = await first(this.db.orm.select().from(r).where(eq(r.keyHash, key)).limit(1));
      if (!row) continue; // purged meanwhile: insert again
      if (row.jobId !== null && row.expiresAt > now) return row;
      const reserving = row.jobId === null && row.holder !== null && row.createdAt + RESERVATION_MS > now;
      if (reserving) {
        await sleep(LOOK_AGAIN_MS, undefined, { signal });
        continue;
      }
      // Past its reuse, or a reservation whose holder never finished: replace it unless it changed.
      const taken = await this.db.orm
        .update(r)
        .set(reservation)
        .where(and(eq(r.keyHash, key), sameVersion(r, row)))
        .returning({ keyHash: r.keyHash });
      if (taken.length === 1) return { since: row.jobId === null ? row.createdAt : null };
    }
  }

  /**
   * Creates the work under this caller's reservation, then records its id (or gives the key back).
   * Never a second create while the first may have made the work: a create whose answer was lost is
   * looked for in the caller's list upstream, twice, and created again only when neither look finds
   * it; when the list cannot be read either, the reservation stays, marked as not known since then, and
   * the next identical submit looks first. `since`: an earlier create's outcome is not known (look first).
   */
  private async create<A>(
    key: string,
    holder: string,
    tool: string,
    work: LongWork<A>,
    args: A,
    ctx: ToolContext,
    since: number | null,
  ): Promise<StartedJob> {
    const { recentSubmits: r } = this.db.t;
    const mine = and(eq(r.keyHash, key), eq(r.holder, holder));
    const make = creating(ctx);
    const unknown = async (at: number): Promise<never> => {
      await this.db.orm
        .update(r)
        .set({ holder: null, createdAt: at })
        .where(mine)
        .catch((err: unknown) => this.logger.warn({ err }, 'could not mark a submit not known'));
      throw new CreateOutcomeUnknown(tool, work.kind);
    };
    if (since !== null) {
      const found = await lookForLostCreate(this.db, work, args, make, since, 1).catch(() => null);
      if (found === null) return unknown(since);
      if (found !== 'none') return this.record(mine, found);
    }
    for (let attempt = 1; ; attempt++) {
      const attemptAt = this.now();
      // Renewed: the reservation holds for this create, and dates it for whoever takes it over.
      if (attempt > 1 || since !== null)
        await this.db.orm
          .update(r)
          .set({ createdAt: attemptAt })
          .where(mine)
          .catch(() => {});
      try {
        return await this.record(mine, await work.start(args, make));
      } catch (error) {
        if (!outcomeUnknown(error)) {
          await this.db.orm
            .delete(r)
            .where(mine)
            .catch((err: unknown) => this.logger.warn({ err }, 'could not release a submit reservation'));
          throw error;
        }
        this.logger.warn({ err: error, tool }, 'a create answer was lost; looking for the work upstream');
        const found = await lookForLostCreate(this.db, work, args, make, attemptAt, 2).catch(() => null);
        if (found === null || (found === 'none' && attempt >= CREATES)) return unknown(attemptAt);
        if (found !== 'none') return this.record(mine, found);
      }
    }
  }

  /** Records the job under this caller's reservation. */
  private async record(mine: SQL | undefined, job: StartedJob): Promise<StartedJob> {
    const { recentSubmits: r } = this.db.t;
    const now = this.now();
    await this.db.orm
      .update(r)
      .set({
        jobId: String(job.id),
        holder: null,
        createdAt: now,
        seenRunningAt: now,
        expiresAt: now + REUSE_WINDOW_MS,
      })
      .where(mine)
      .catch((err: unknown) => this.logger.warn({ err }, 'could not record a submitted job'));
    return job;
  }
}

/** A reservation this caller holds; `since`: a create made then may exist upstream (look first). */
type Claim = { since: number | null };

/** The row as read, unchanged since: the condition of a compare-and-set. */
function sameVersion(r: Store['t']['recentSubmits'], row: Row): SQL | undefined {
  return and(
    eq(r.createdAt, row.createdAt),
    eq(r.expiresAt, row.expiresAt),
    row.jobId === null ? isNull(r.jobId) : eq(r.jobId, row.jobId),
    row.holder === null ? isNull(r.holder) : eq(r.holder, row.holder),
  );
}

/** Search ids are whole numbers upstream, run ids UUIDs. */
function jobIdOf(kind: JobKind, stored: string): string | number {
  return kind === 'run' ? stored : Number(stored);
}

/** Deletes rows past their reuse (and reservations whose holder never finished). */
export async function purgeRecentSubmits(db: Store, now = Date.now()): Promise<number> {
  const { recentSubmits: r } = db.t;
  const gone = await db.orm.delete(r).where(lt(r.expiresAt, now)).returning({ keyHash: r.keyHash });
  return gone.length;
}
