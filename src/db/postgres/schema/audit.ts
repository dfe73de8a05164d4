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
    // One index per filter of the team trail (src/audit/query.ts), each ending in (at, id): a page is
    // a range of one of them read in order, from the cursor on, whatever the team's size.
    index('audit_workspace_at_idx').on(t.workspaceId, t.at, t.id),
    index('audit_workspace_kind_at_idx').on(t.workspaceId, t.kind, t.at, t.id),
    index('audit_workspace_tool_at_idx').on(t.workspaceId, t.tool, t.at, t.id),
    // A person's events per workspace: the member filter, the write cap's count, and (workspace_id
    // IS NULL) the account events a team's trail shows for each of its members.
    index('audit_user_workspace_at_idx').on(t.userId, t.workspaceId, t.at, t.id),
    // The retention purge and the admin export.
    index('audit_at_idx').on(t.at, t.id),
  ],
);
