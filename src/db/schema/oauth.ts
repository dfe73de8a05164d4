import { sql } from 'drizzle-orm';
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { users } from './accounts.js';
import { workspaces } from './workspaces.js';

/**
 * OAuth clients: RFC 7591 registrations and cached Client ID Metadata Documents
 * (draft-ietf-oauth-client-id-metadata-document), told apart by `kind`.
 */
export const oauthClients = sqliteTable(
  'oauth_clients',
  {
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
  },
  (t) => [index('clients_expires_idx').on(t.expiresAt, t.id)],
);

/**
 * A user's authorization of one client in one workspace: one "connected app". At most one live grant
 * per (user, client, workspace): authorizing the client again renews it (its scopes: the union of what
 * the app was allowed) and starts a new token family in it, so other devices' tokens keep working.
 */
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
    /** For an access token: `access-token:` and the grant's id (no OAuth client is behind it). */
    clientId: text('client_id').notNull(),
    /**
     * `oauth`: a connected app (a client's authorization). `access_token`: an access token a person made
     * for automation, one token row with its own expiry and no refresh token; every rule of a grant
     * applies to it by being one.
     */
    kind: text('kind', { enum: ['oauth', 'access_token'] })
      .notNull()
      .default('oauth'),
    /** The access token's name, as its owner gave it; null for a connected app. */
    name: text('name'),
    /** Space-separated granted scopes. */
    scopes: text('scopes').notNull(),
    /**
     * The toolsets chosen at consent or for the access token (space-separated names); null means every
     * toolset. It only narrows what the connection sees: scopes still say what it may do.
     */
    toolsets: text('toolsets'),
    /** Read-only chosen at consent or for the access token: no tool that writes or spends is listed or run. */
    readOnly: integer('read_only', { mode: 'boolean' }).notNull().default(false),
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
    uniqueIndex('grants_live_user_client_workspace_idx')
      .on(t.userId, t.clientId, t.workspaceId)
      .where(sql`${t.revokedAt} IS NULL`),
  ],
);

/** Authorization codes, stored hashed; single use (RFC 6749 §4.1.2, §10.5). */
export const oauthCodes = sqliteTable(
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
    /** Whether the authorization request named redirect_uri: then /token must repeat it (OAuth 2.1 §4.1.3). */
    redirectUriSent: integer('redirect_uri_sent', { mode: 'boolean' }).notNull().default(true),
    codeChallenge: text('code_challenge').notNull(),
    scopes: text('scopes').notNull(),
    /** The toolsets and read-only switch chosen at consent, given to the grant (see oauth_grants). */
    toolsets: text('toolsets'),
    readOnly: integer('read_only', { mode: 'boolean' }).notNull().default(false),
    resource: text('resource').notNull(),
    createdAt: integer('created_at').notNull(),
    expiresAt: integer('expires_at').notNull(),
    usedAt: integer('used_at'),
    /** The grant the exchange created or renewed. */
    grantId: text('grant_id'),
    /** The token family the exchange started, revoked if the code is replayed (RFC 6749 §4.1.2). */
    familyId: text('family_id'),
  },
  (t) => [index('codes_expires_idx').on(t.expiresAt)],
);

/** Access and refresh tokens, stored as SHA-256 only. */
export const oauthTokens = sqliteTable(
  'oauth_tokens',
  {
    tokenHash: text('token_hash').primaryKey(),
    grantId: text('grant_id')
      .notNull()
      .references(() => oauthGrants.id, { onDelete: 'cascade' }),
    /**
     * The chain of tokens one code exchange started (one device or session): refresh rotation stays in
     * it, and refresh-token reuse revokes it, not the grant's other families.
     */
    familyId: text('family_id').notNull(),
    kind: text('kind', { enum: ['access', 'refresh'] }).notNull(),
    /**
     * The scopes the token carries: a refresh token its family's, an access token those or fewer (a
     * refresh may narrow them, RFC 6749 §6).
     */
    scopes: text('scopes'),
    createdAt: integer('created_at').notNull(),
    expiresAt: integer('expires_at').notNull(),
    /** Refresh tokens: when it was exchanged for its successor (rotation). */
    rotatedAt: integer('rotated_at'),
    /**
     * Refresh tokens: when the one extra pair the grace window allows after rotation was issued (a
     * client that refreshed twice at once); any further use is reuse.
     */
    graceUsedAt: integer('grace_used_at'),
    revokedAt: integer('revoked_at'),
    /**
     * Which branch of its family the token is on, once a grace use forked the family into two chains
     * (null: the branch the family started with). Inherited by a branch's later tokens.
     */
    branch: text('branch'),
    /**
     * Refresh tokens: when their family forked, while it has another live branch; rotating such a token
     * takes refreshGrant's general path, which ends the other branches once the grace window has passed.
     */
    forkedAt: integer('forked_at'),
  },
  (t) => [
    index('tokens_grant_idx').on(t.grantId),
    index('tokens_family_idx').on(t.familyId),
    index('tokens_expires_idx').on(t.expiresAt),
    // Only revoked tokens: the purge's second range, without a scan of the live ones.
    index('tokens_revoked_idx').on(t.revokedAt).where(sql`${t.revokedAt} IS NOT NULL`),
  ],
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
    /** The toolsets and read-only switch last chosen (see oauth_grants): the next consent starts from them. */
    toolsets: text('toolsets'),
    readOnly: integer('read_only', { mode: 'boolean' }).notNull().default(false),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.clientId, t.workspaceId] })],
);

/**
 * Consent decisions already taken, by the one-use id of the signed authorization request the consent
 * form carried: a decision posted again (double click, replayed form) gets the same answer instead of
 * a second code. The answer (the redirect, which holds the code) is sealed with the server key and
 * kept only as long as the code lives.
 */
export const oauthDecisions = sqliteTable(
  'oauth_decisions',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** The redirect sent back (sealed); null while the first post is still deciding. */
    answerSealed: text('answer_sealed'),
    createdAt: integer('created_at').notNull(),
    expiresAt: integer('expires_at').notNull(),
  },
  (t) => [index('decisions_expires_idx').on(t.expiresAt)],
);
