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
    index('audit_workspace_at_idx').on(t.workspaceId, t.at),
    index('audit_user_at_idx').on(t.userId, t.at),
    index('audit_at_idx').on(t.at),
  ],
);
