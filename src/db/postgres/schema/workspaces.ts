import { bigint, boolean, index, integer, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { users } from './accounts.js';

/** PostgreSQL twins of ../../schema/workspaces.ts (the comments there say what each column means). */
export const workspaces = pgTable('workspaces', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  kind: text('kind', { enum: ['personal', 'team'] }).notNull(),
  membersReadTeamWork: boolean('members_read_team_work').notNull().default(true),
  accessTokensAllowed: boolean('access_tokens_allowed').notNull().default(true),
  accessTokenMaxDays: integer('access_token_max_days').notNull().default(90),
  createdAt: bigint('created_at', { mode: 'number' }).notNull(),
  updatedAt: bigint('updated_at', { mode: 'number' }).notNull(),
});

export const workspaceMembers = pgTable(
  'workspace_members',
  {
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    role: text('role', { enum: ['owner', 'admin', 'member'] }).notNull(),
    upstreamUserId: text('upstream_user_id'),
    maxScopes: text('max_scopes'),
    monthlyWriteCap: integer('monthly_write_cap'),
    canChangeWebhook: boolean('can_change_webhook'),
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.userId] }), index('members_user_idx').on(t.userId)],
);

export const upstreamCredentials = pgTable('upstream_credentials', {
  workspaceId: text('workspace_id')
    .primaryKey()
    .references(() => workspaces.id, { onDelete: 'cascade' }),
  tokenCiphertext: text('token_ciphertext').notNull(),
  keyId: text('key_id').notNull(),
  tokenLast4: text('token_last4').notNull(),
  upstreamUserId: text('upstream_user_id').notNull(),
  linkedBy: text('linked_by').references(() => users.id, { onDelete: 'set null' }),
  verifiedAt: bigint('verified_at', { mode: 'number' }).notNull(),
  createdAt: bigint('created_at', { mode: 'number' }).notNull(),
  updatedAt: bigint('updated_at', { mode: 'number' }).notNull(),
});

export const invites = pgTable(
  'invites',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    tokenHash: text('token_hash').notNull().unique(),
    role: text('role', { enum: ['admin', 'member'] }).notNull(),
    maxUses: integer('max_uses'),
    uses: integer('uses').notNull().default(0),
    expiresAt: bigint('expires_at', { mode: 'number' }).notNull(),
    createdBy: text('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
    revokedAt: bigint('revoked_at', { mode: 'number' }),
    /** The admin's note of whom the invite is for (shown to the team's admins only); null: none. */
    note: text('note'),
  },
  (t) => [index('invites_workspace_idx').on(t.workspaceId)],
);

export const itemCreators = pgTable(
  'item_creators',
  {
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    kind: text('kind').notNull(),
    itemId: text('item_id').notNull(),
    userId: text('user_id').notNull(),
    upstreamUserId: text('upstream_user_id').notNull(),
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.kind, t.itemId] })],
);

export const writeReservations = pgTable(
  'write_reservations',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    userId: text('user_id').notNull(),
    tool: text('tool').notNull(),
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
  },
  (t) => [index('write_reservations_member_idx').on(t.userId, t.workspaceId, t.createdAt)],
);
