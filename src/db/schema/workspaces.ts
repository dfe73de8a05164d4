import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { users } from './accounts.js';

export const workspaces = sqliteTable('workspaces', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  /** `personal` (one per user, made at sign-up) or `team`. */
  kind: text('kind', { enum: ['personal', 'team'] }).notNull(),
  /**
   * Team setting: plain members may read teammates' agent runs, schedules and searches (owners and
   * admins always may). Default yes; changing it is an audited team event.
   */
  membersReadTeamWork: integer('members_read_team_work', { mode: 'boolean' }).notNull().default(true),
  /**
   * Members may create access tokens for automation here (default yes). Turned off, every live token of
   * the workspace is revoked and none is accepted. An audited owner/admin setting.
   */
  accessTokensAllowed: integer('access_tokens_allowed', { mode: 'boolean' }).notNull().default(true),
  /**
   * The longest an access token of this workspace lives, in days, from its creation: applies to tokens
   * already made too (their expiry is the earlier of the two). An audited owner/admin setting.
   */
  accessTokenMaxDays: integer('access_token_max_days').notNull().default(90),
  createdAt: integer('created_at').notNull(),
  updatedAt: integer('updated_at').notNull(),
});

export const workspaceMembers = sqliteTable(
  'workspace_members',
  {
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    role: text('role', { enum: ['owner', 'admin', 'member'] }).notNull(),
    /** What X-SERVICE-USER-ID carries for this member; null means the stable default derived from the account. */
    upstreamUserId: text('upstream_user_id'),
    /** Space-separated ceiling on the scopes this member may grant; null means no ceiling. */
    maxScopes: text('max_scopes'),
    /** Credit-spending tool calls allowed per calendar month (UTC); null means unlimited. */
    monthlyWriteCap: integer('monthly_write_cap'),
    /**
     * May change the team's webhook (update_integration_setup); null means the role's default: owners
     * and admins may, members may not.
     */
    canChangeWebhook: integer('can_change_webhook', { mode: 'boolean' }),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.userId] }), index('members_user_idx').on(t.userId)],
);

/** One upstream credential per workspace, encrypted (security/secrets.ts envelope). */
export const upstreamCredentials = sqliteTable('upstream_credentials', {
  workspaceId: text('workspace_id')
    .primaryKey()
    .references(() => workspaces.id, { onDelete: 'cascade' }),
  tokenCiphertext: text('token_ciphertext').notNull(),
  /** Id of the key that sealed the envelope, so rotation can find what to re-encrypt. */
  keyId: text('key_id').notNull(),
  tokenLast4: text('token_last4').notNull(),
  /** The upstream user id entered with the token: the default for the member who linked it. */
  upstreamUserId: text('upstream_user_id').notNull(),
  linkedBy: text('linked_by').references(() => users.id, { onDelete: 'set null' }),
  verifiedAt: integer('verified_at').notNull(),
  createdAt: integer('created_at').notNull(),
  updatedAt: integer('updated_at').notNull(),
});

export const invites = sqliteTable(
  'invites',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    tokenHash: text('token_hash').notNull().unique(),
    role: text('role', { enum: ['admin', 'member'] }).notNull(),
    /** null = unlimited uses until expiry. */
    maxUses: integer('max_uses'),
    uses: integer('uses').notNull().default(0),
    expiresAt: integer('expires_at').notNull(),
    createdBy: text('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: integer('created_at').notNull(),
    revokedAt: integer('revoked_at'),
    /** The admin's note of whom the invite is for (shown to the team's admins only); null: none. */
    note: text('note'),
  },
  (t) => [index('invites_workspace_idx').on(t.workspaceId)],
);

/**
 * Who created each search or schedule through this server. Searches carry no owner upstream, and a
 * schedule may not either: this is how "a member's own" is told for them (src/teams/ownership.ts).
 * Items made elsewhere (the upstream's web app, before this table) have no row: nobody's own.
 */
export const itemCreators = sqliteTable(
  'item_creators',
  {
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    /** keyword_search, user_search, expert_search or schedule. */
    kind: text('kind').notNull(),
    /** The upstream id, as text (searches have integer ids, schedules UUIDs). */
    itemId: text('item_id').notNull(),
    /** Our account that created it (plain text, like the audit trail: it outlives the member). */
    userId: text('user_id').notNull(),
    /** The X-SERVICE-USER-ID it was created under: what "own" is compared with. */
    upstreamUserId: text('upstream_user_id').notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.kind, t.itemId] })],
);

/**
 * Credit-spending tool calls in flight for a member with a monthly cap: inserted in the same IMMEDIATE
 * transaction as the cap check and deleted when the call's audit row is written, so concurrent calls
 * count each other (src/teams/write-cap.ts).
 */
export const writeReservations = sqliteTable(
  'write_reservations',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    userId: text('user_id').notNull(),
    tool: text('tool').notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [index('write_reservations_member_idx').on(t.userId, t.workspaceId, t.createdAt)],
);
