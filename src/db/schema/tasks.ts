import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * Tasks of the MCP tasks extension (mcp/tasks/): a tools/call answered with a task handle, whose
 * upstream work is settled in the background by whichever instance holds its lease. A task belongs to
 * the person, app and workspace that created it (the `owner_*` columns, as audit rows name a caller);
 * its id is random and unguessable. `args` are the tool's validated arguments (never a credential):
 * the work is settled again from them after a restart.
 */
export const tasks = sqliteTable(
  'tasks',
  {
    id: text('id').primaryKey(),
    ownerUserId: text('owner_user_id').notNull(),
    ownerClientId: text('owner_client_id').notNull(),
    /**
     * The grant (a connected app, or an access token) that created it: a task answers to that grant
     * alone, so a revoked app's tasks stay "not found" after its client reconnects ('' before this column).
     */
    ownerGrantId: text('owner_grant_id').notNull().default(''),
    ownerWorkspaceId: text('owner_workspace_id').notNull(),
    tool: text('tool').notNull(),
    args: text('args').notNull(),
    /** keyword_search, user_search, expert_search or run, and the upstream id. */
    jobKind: text('job_kind').notNull(),
    jobId: text('job_id').notNull(),
    /** How long before the task the identical submit it reused was made; null when it created its work. */
    reusedAgeMs: integer('reused_age_ms'),
    /** working, completed, cancelled (failed: a JSON-RPC error, which no tool call of ours ends in). */
    status: text('status').notNull(),
    statusMessage: text('status_message'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
    /** When the job is next read upstream, for the clients' poll interval. */
    nextPollAt: integer('next_poll_at'),
    /** The tools/call result as the synchronous call would have answered it (JSON), once completed. */
    result: text('result'),
    /** The instance settling it, and until when its claim holds without renewal. */
    leaseOwner: text('lease_owner'),
    leaseUntil: integer('lease_until').notNull(),
    /** The task may be discarded after this (its TTL); housekeeping deletes ended tasks past it. */
    expiresAt: integer('expires_at').notNull(),
  },
  (t) => [
    index('tasks_working_lease_idx').on(t.status, t.leaseUntil),
    index('tasks_lease_owner_idx').on(t.leaseOwner),
    index('tasks_expires_idx').on(t.expiresAt),
    // The working-task limits count by person and by workspace (mcp/tasks/task-limits.ts).
    index('tasks_owner_user_idx').on(t.ownerUserId, t.status),
    index('tasks_owner_workspace_idx').on(t.ownerWorkspaceId, t.status),
  ],
);
