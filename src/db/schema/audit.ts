import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * Tool calls and security events. Ids are plain text rather than foreign keys so the trail outlives
 * the users, clients and workspaces it mentions. Never holds tool arguments or secrets.
 */
export const auditEvents = sqliteTable(
  'audit_events',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    at: integer('at').notNull(),
    /** e.g. tool_call, sign_in, sign_in_failed, grant_created, grant_revoked, credential_linked. */
    kind: text('kind').notNull(),
    workspaceId: text('workspace_id'),
    userId: text('user_id'),
    clientId: text('client_id'),
    tool: text('tool'),
    /** Outcome: ok, error, or the upstream HTTP status. */
    status: text('status'),
    durationMs: integer('duration_ms'),
    /** Small JSON object of non-secret detail. */
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
