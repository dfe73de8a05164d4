import { bigint, index, integer, pgTable, text } from 'drizzle-orm/pg-core';

/** PostgreSQL twin of ../../schema/audit.ts. The id is a 64-bit identity, like SQLite's rowid. */
export const auditEvents = pgTable(
  'audit_events',
  {
    // "by default" rather than "always": the SQLite → PostgreSQL copy inserts the existing ids.
    id: bigint('id', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
    at: bigint('at', { mode: 'number' }).notNull(),
    kind: text('kind').notNull(),
    workspaceId: text('workspace_id'),
    userId: text('user_id'),
    clientId: text('client_id'),
    tool: text('tool'),
    status: text('status'),
    durationMs: integer('duration_ms'),
    detail: text('detail'),
  },
  (t) => [
    index('audit_workspace_at_idx').on(t.workspaceId, t.at),
    index('audit_user_at_idx').on(t.userId, t.at),
    index('audit_at_idx').on(t.at),
  ],
);
