import { sql } from 'drizzle-orm';
import { bigint, boolean, index, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { users } from './accounts.js';
import { workspaces } from './workspaces.js';

/** PostgreSQL twins of ../../schema/oauth.ts (the comments there say what each column means). */
export const oauthClients = pgTable(
  'oauth_clients',
  {
    id: text('id').primaryKey(),
    kind: text('kind', { enum: ['dcr', 'cimd'] }).notNull(),
    secretHash: text('secret_hash'),
    tokenEndpointAuthMethod: text('token_endpoint_auth_method').notNull(),
    clientName: text('client_name'),
    clientUri: text('client_uri'),
    logoUri: text('logo_uri'),
    redirectUris: text('redirect_uris').notNull(),
    grantTypes: text('grant_types').notNull(),
    responseTypes: text('response_types').notNull(),
    applicationType: text('application_type', { enum: ['web', 'native'] }).notNull(),
    scope: text('scope'),
    metadata: text('metadata').notNull(),
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
    lastUsedAt: bigint('last_used_at', { mode: 'number' }).notNull(),
    expiresAt: bigint('expires_at', { mode: 'number' }),
  },
  (t) => [index('clients_expires_idx').on(t.expiresAt, t.id)],
);

export const oauthGrants = pgTable(
  'oauth_grants',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    clientId: text('client_id').notNull(),
    kind: text('kind', { enum: ['oauth', 'access_token'] })
      .notNull()
      .default('oauth'),
    name: text('name'),
    scopes: text('scopes').notNull(),
    toolsets: text('toolsets'),
    readOnly: boolean('read_only').notNull().default(false),
    resource: text('resource').notNull(),
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
    lastUsedAt: bigint('last_used_at', { mode: 'number' }),
    revokedAt: bigint('revoked_at', { mode: 'number' }),
    revokedReason: text('revoked_reason'),
  },
  (t) => [
    index('grants_user_idx').on(t.userId),
    index('grants_client_idx').on(t.clientId),
    index('grants_workspace_idx').on(t.workspaceId),
    uniqueIndex('grants_live_user_client_workspace_idx')
      .on(t.userId, t.clientId, t.workspaceId)
      .where(sql`${t.revokedAt} IS NULL`),
  ],
);

export const oauthCodes = pgTable(
  'oauth_codes',
  {
    codeHash: text('code_hash').primaryKey(),
    clientId: text('client_id').notNull(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    redirectUri: text('redirect_uri').notNull(),
    redirectUriSent: boolean('redirect_uri_sent').notNull().default(true),
    codeChallenge: text('code_challenge').notNull(),
    scopes: text('scopes').notNull(),
    toolsets: text('toolsets'),
    readOnly: boolean('read_only').notNull().default(false),
    resource: text('resource').notNull(),
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
    expiresAt: bigint('expires_at', { mode: 'number' }).notNull(),
    usedAt: bigint('used_at', { mode: 'number' }),
    grantId: text('grant_id'),
    familyId: text('family_id'),
  },
  (t) => [index('codes_expires_idx').on(t.expiresAt)],
);

export const oauthTokens = pgTable(
  'oauth_tokens',
  {
    tokenHash: text('token_hash').primaryKey(),
    grantId: text('grant_id')
      .notNull()
      .references(() => oauthGrants.id, { onDelete: 'cascade' }),
    familyId: text('family_id').notNull(),
    kind: text('kind', { enum: ['access', 'refresh'] }).notNull(),
    scopes: text('scopes'),
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
    expiresAt: bigint('expires_at', { mode: 'number' }).notNull(),
    rotatedAt: bigint('rotated_at', { mode: 'number' }),
    graceUsedAt: bigint('grace_used_at', { mode: 'number' }),
    revokedAt: bigint('revoked_at', { mode: 'number' }),
    branch: text('branch'),
    forkedAt: bigint('forked_at', { mode: 'number' }),
  },
  (t) => [
    index('tokens_grant_idx').on(t.grantId),
    index('tokens_family_idx').on(t.familyId),
    index('tokens_expires_idx').on(t.expiresAt),
    // Only revoked tokens: the purge's second range, without a scan of the live ones.
    index('tokens_revoked_idx').on(t.revokedAt).where(sql`${t.revokedAt} IS NOT NULL`),
  ],
);

export const consents = pgTable(
  'consents',
  {
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    clientId: text('client_id').notNull(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    scopes: text('scopes').notNull(),
    toolsets: text('toolsets'),
    readOnly: boolean('read_only').notNull().default(false),
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
    updatedAt: bigint('updated_at', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.clientId, t.workspaceId] })],
);

export const oauthDecisions = pgTable(
  'oauth_decisions',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    answerSealed: text('answer_sealed'),
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
    expiresAt: bigint('expires_at', { mode: 'number' }).notNull(),
  },
  (t) => [index('decisions_expires_idx').on(t.expiresAt)],
);
