import { and, count, eq } from 'drizzle-orm';
import { SharedRateLimiter } from '../../accounts/rate-limits.js';
import type { Config } from '../../config.js';
import type { Store } from '../../db/store/index.js';
import { first, forUpdate } from '../../db/store/query.js';
import type { MemberCaller } from '../auth/caller.js';
import type { TaskRow } from './task-store.js';

/**
 * Tasks are a resource with limits (docs/security.md, "Tasks"): each holds a row, a result for a day
 * and, while working, memory on the instance settling it. At most this many working tasks per person
 * (across their workspaces) and per workspace, and at most TASK_CREATIONS new tasks a minute per person.
 */
export const WORKING_TASKS_PER_PERSON = 100;
export const WORKING_TASKS_PER_WORKSPACE = 100;
export const TASK_CREATIONS = { limit: 30, windowMs: 60_000 };

/** Why a task may not be created now, in words a model can act on. */
function fullSentence(scope: 'person' | 'workspace'): string {
  const whose = scope === 'person' ? 'You have' : 'This workspace has';
  const limit = scope === 'person' ? WORKING_TASKS_PER_PERSON : WORKING_TASKS_PER_WORKSPACE;
  return `${whose} ${limit} working tasks, the limit. Wait for some to finish (tasks/get) or cancel them (tasks/cancel), then submit again.`;
}

export class TaskLimits {
  private readonly creations: SharedRateLimiter;

  constructor(
    private readonly db: Store,
    config: Config,
  ) {
    this.creations = new SharedRateLimiter(db, config, 'task creations', TASK_CREATIONS);
  }

  /**
   * Checked before the work starts, so a refused call spends nothing upstream: the working limits
   * (read, not reserved: `insert` holds them exactly), then the creation rate (counted atomically).
   * The refusal's sentence, or null.
   */
  async admit(caller: MemberCaller): Promise<string | null> {
    const full = await this.full(this.db, caller);
    if (full) return full;
    const hit = await this.creations.hit(caller.userId);
    if (hit.allowed) return null;
    return `You created ${TASK_CREATIONS.limit} tasks in the last minute, the limit. Try again in ${hit.retryAfterSeconds} seconds, or call the tool without the tasks extension.`;
  }

  /**
   * Stores a task unless its person or workspace is at the working limit, in one transaction holding
   * the workspace's and the person's rows (FOR UPDATE on PostgreSQL; SQLite's one writer), so
   * parallel creations on any number of instances never pass it. A task of the same id (an identical
   * submit reusing the job) is not stored again: `existing` is then that row.
   */
  insert(
    row: TaskRow,
    now: number,
  ): Promise<{ stored: true } | { stored: false; refusal: string } | { stored: false; existing: TaskRow }> {
    return this.db.transaction(async (tx) => {
      const { tasks, workspaces, users } = tx.t;
      await first(
        forUpdate(
          tx,
          tx.orm
            .select({ id: workspaces.id })
            .from(workspaces)
            .where(eq(workspaces.id, row.ownerWorkspaceId)),
        ),
      );
      await first(
        forUpdate(tx, tx.orm.select({ id: users.id }).from(users).where(eq(users.id, row.ownerUserId))),
      );
      const existing = await first(tx.orm.select().from(tasks).where(eq(tasks.id, row.id)));
      // A cancelled or expired task of the same job is replaced: the submit asked for the work again.
      if (existing && existing.status !== 'cancelled' && existing.expiresAt >= now)
        return { stored: false, existing };
      if (existing) await tx.orm.delete(tasks).where(eq(tasks.id, row.id));
      const full = await this.full(tx, { userId: row.ownerUserId, workspaceId: row.ownerWorkspaceId });
      if (full) return { stored: false, refusal: full };
      await tx.orm.insert(tasks).values(row);
      return { stored: true };
    });
  }

  private async full(db: Store, owner: { userId: string; workspaceId: string }): Promise<string | null> {
    const t = db.t.tasks;
    const mine = await first(
      db.orm
        .select({ n: count() })
        .from(t)
        .where(and(eq(t.ownerUserId, owner.userId), eq(t.status, 'working'))),
    );
    if ((mine?.n ?? 0) >= WORKING_TASKS_PER_PERSON) return fullSentence('person');
    const team = await first(
      db.orm
        .select({ n: count() })
        .from(t)
        .where(and(eq(t.ownerWorkspaceId, owner.workspaceId), eq(t.status, 'working'))),
    );
    if ((team?.n ?? 0) >= WORKING_TASKS_PER_WORKSPACE) return fullSentence('workspace');
    return null;
  }
}
