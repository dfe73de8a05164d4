import { bigint, index, pgTable, text } from 'drizzle-orm/pg-core';

/** PostgreSQL twin of ../../schema/tasks.ts. */
export const tasks = pgTable(
  'tasks',
  {
    id: text('id').primaryKey(),
    ownerUserId: text('owner_user_id').notNull(),
    ownerClientId: text('owner_client_id').notNull(),
    ownerGrantId: text('owner_grant_id').notNull().default(''),
    ownerWorkspaceId: text('owner_workspace_id').notNull(),
    tool: text('tool').notNull(),
    args: text('args').notNull(),
    jobKind: text('job_kind').notNull(),
    jobId: text('job_id').notNull(),
    reusedAgeMs: bigint('reused_age_ms', { mode: 'number' }),
    status: text('status').notNull(),
    statusMessage: text('status_message'),
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
    updatedAt: bigint('updated_at', { mode: 'number' }).notNull(),
    nextPollAt: bigint('next_poll_at', { mode: 'number' }),
    result: text('result'),
    leaseOwner: text('lease_owner'),
    leaseUntil: bigint('lease_until', { mode: 'number' }).notNull(),
    expiresAt: bigint('expires_at', { mode: 'number' }).notNull(),
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
