import { and, eq, lt, sql } from 'drizzle-orm';
import type { Store } from '../../db/store/index.js';

/** A task as stored (../../db/schema/tasks.ts); its `id` is the SHA-256 of the id clients hold. */
export type TaskRow = Store['t']['tasks']['$inferSelect'];

/**
 * The tasks table's reads and writes, each one statement. Every write that changes a task's state is
 * conditional on `status = 'working'`, so the first of two instances (or of a completion and a
 * cancel) wins and the other learns it lost from the rows it matched.
 */
export class TaskStore {
  private byId: ReturnType<typeof prepareById> | undefined;

  constructor(private readonly db: Store) {}

  insert(row: TaskRow): Promise<unknown> {
    return this.db.orm.insert(this.db.t.tasks).values(row);
  }

  /** One task by the hash of its id: the lookup every tasks/get makes, prepared once. */
  async read(idHash: string): Promise<TaskRow | undefined> {
    this.byId ??= prepareById(this.db);
    const rows = await this.byId.execute({ id: idHash });
    return rows[0];
  }

  /** Where a working task stands; false when it is no longer working (cancelled, completed elsewhere). */
  async progress(
    idHash: string,
    update: { statusMessage: string; updatedAt: number; nextPollAt: number | null },
  ): Promise<boolean> {
    const t = this.db.t.tasks;
    const rows = await this.db.orm
      .update(t)
      .set(update)
      .where(and(eq(t.id, idHash), eq(t.status, 'working')))
      .returning({ id: t.id });
    return rows.length === 1;
  }

  /** Ends a working task (completed with its result, or cancelled); false when it had already ended. */
  async end(
    idHash: string,
    update: {
      status: 'completed' | 'cancelled';
      statusMessage: string;
      result: string | null;
      updatedAt: number;
      expiresAt: number;
    },
  ): Promise<boolean> {
    const t = this.db.t.tasks;
    const rows = await this.db.orm
      .update(t)
      .set({ ...update, leaseOwner: null, leaseUntil: 0, nextPollAt: null })
      .where(and(eq(t.id, idHash), eq(t.status, 'working')))
      .returning({ id: t.id });
    return rows.length === 1;
  }

  /** Extends this instance's leases; the ids it still holds (the others were ended or taken over). */
  async renew(owner: string, until: number): Promise<Set<string>> {
    const t = this.db.t.tasks;
    const rows = await this.db.orm
      .update(t)
      .set({ leaseUntil: until })
      .where(and(eq(t.leaseOwner, owner), eq(t.status, 'working')))
      .returning({ id: t.id });
    return new Set(rows.map((r) => r.id));
  }

  /**
   * Takes over working tasks whose lease ran out (their instance stopped or crashed). One statement:
   * of two instances claiming at once, PostgreSQL re-checks the condition on the row the first
   * updated, so each task goes to one of them.
   */
  claimExpired(owner: string, until: number, now: number): Promise<TaskRow[]> {
    const t = this.db.t.tasks;
    return this.db.orm
      .update(t)
      .set({ leaseOwner: owner, leaseUntil: until })
      .where(and(eq(t.status, 'working'), lt(t.leaseUntil, now)))
      .returning();
  }

  /** Takes over one task whose lease ran out, unless another instance did first. */
  async claim(row: TaskRow, owner: string, until: number): Promise<TaskRow | undefined> {
    const t = this.db.t.tasks;
    const rows = await this.db.orm
      .update(t)
      .set({ leaseOwner: owner, leaseUntil: until })
      .where(and(eq(t.id, row.id), eq(t.status, 'working'), eq(t.leaseUntil, row.leaseUntil)))
      .returning();
    return rows[0];
  }

  /** Gives this instance's leases up at shutdown, so another instance resumes at once. */
  release(owner: string): Promise<unknown> {
    const t = this.db.t.tasks;
    return this.db.orm
      .update(t)
      .set({ leaseOwner: null, leaseUntil: 0 })
      .where(and(eq(t.leaseOwner, owner), eq(t.status, 'working')));
  }
}

function prepareById(db: Store) {
  const t = db.t.tasks;
  return db.orm
    .select()
    .from(t)
    .where(eq(t.id, sql.placeholder('id')))
    .limit(1)
    .prepare('task_by_id');
}

/** Deletes tasks past their time to live. */
export async function purgeTasks(db: Store, now = Date.now()): Promise<number> {
  const t = db.t.tasks;
  const gone = await db.orm.delete(t).where(lt(t.expiresAt, now)).returning({ id: t.id });
  return gone.length;
}
