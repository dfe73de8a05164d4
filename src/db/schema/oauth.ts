import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { users } from './accounts.js';
import { workspaces } from './workspaces.js';

/**
 * OAuth clients: RFC 7591 registrations and cached Client ID Metadata Documents
 * (draft-ietf-oauth-client-id-metadata-document), told apart by `kind`.
 */
export const oauthClients = sqliteTable('oauth_clients', {
  /** Random id for DCR; the https metadata URL itself for CIMD. */
  id: text('id').primaryKey(),
  kind: text('kind', { enum: ['dcr', 'cimd'] }).notNull(),
  /** SHA-256 of the client secret for confidential DCR clients; never the secret. */
  secretHash: text('secret_hash'),
  tokenEndpointAuthMethod: text('token_endpoint_auth_method').notNull(),
  clientName: text('client_name'),
  clientUri: text('client_uri'),
  logoUri: text('logo_uri'),
  /** JSON array of strings. */
  redirectUris: text('redirect_uris').notNull(),
  grantTypes: text('grant_types').notNull(),
  responseTypes: text('response_types').notNull(),
  applicationType: text('application_type', { enum: ['web', 'native'] }).notNull(),
  scope: text('scope'),
  /** The full registered or fetched metadata, JSON. */
  metadata: text('metadata').notNull(),
  createdAt: integer('created_at').notNull(),
  lastUsedAt: integer('last_used_at').notNull(),
  /** DCR: idle expiry, pushed forward on use. CIMD: when the cached document must be fetched again. */
  expiresAt: integer('expires_at'),
});

/** A user's authorization of one client in one workspace; the family all its tokens belong to. */
export const oauthGrants = sqliteTable(
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
    /** Space-separated granted scopes. */
    scopes: text('scopes').notNull(),
    /** RFC 8707 resource the tokens are bound to. */
    resource: text('resource').notNull(),
    createdAt: integer('created_at').notNull(),
    lastUsedAt: integer('last_used_at'),
    revokedAt: integer('revoked_at'),
    revokedReason: text('revoked_reason'),
  },
  (t) => [
    index('grants_user_idx').on(t.userId),
    index('grants_client_idx').on(t.clientId),
    index('grants_workspace_idx').on(t.workspaceId),
  ],
);

/** Authorization codes, stored hashed; single use (RFC 6749 §4.1.2, §10.5). */
export const oauthCodes = sqliteTable('oauth_codes', {
  codeHash: text('code_hash').primaryKey(),
  clientId: text('client_id').notNull(),
  userId: text('user_id')
    .notNull()
    .references(() => users.id, { onDelete: 'cascade' }),
  workspaceId: text('workspace_id')
    .notNull()
    .references(() => workspaces.id, { onDelete: 'cascade' }),
  redirectUri: text('redirect_uri').notNull(),
  codeChallenge: text('code_challenge').notNull(),
  scopes: text('scopes').notNull(),
  resource: text('resource').notNull(),
  createdAt: integer('created_at').notNull(),
  expiresAt: integer('expires_at').notNull(),
  usedAt: integer('used_at'),
  /** The grant the exchange created, revoked if the code is replayed. */
  grantId: text('grant_id'),
});

/** Access and refresh tokens, stored as SHA-256 only. */
export const oauthTokens = sqliteTable(
  'oauth_tokens',
  {
    tokenHash: text('token_hash').primaryKey(),
    grantId: text('grant_id')
      .notNull()
      .references(() => oauthGrants.id, { onDelete: 'cascade' }),
    kind: text('kind', { enum: ['access', 'refresh'] }).notNull(),
    /** Access tokens: the scopes this token carries (a refresh may narrow them, RFC 6749 §6). */
    scopes: text('scopes'),
    createdAt: integer('created_at').notNull(),
    expiresAt: integer('expires_at').notNull(),
    /** Refresh tokens: when it was exchanged for its successor (rotation). */
    rotatedAt: integer('rotated_at'),
    revokedAt: integer('revoked_at'),
  },
  (t) => [index('tokens_grant_idx').on(t.grantId), index('tokens_expires_idx').on(t.expiresAt)],
);

/** Remembered consent per (user, client, workspace); asked again when the scopes grow. */
export const consents = sqliteTable(
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
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.clientId, t.workspaceId] })],
);
