import { and, eq, isNull, lt, or, sql } from 'drizzle-orm';
import { clientSubject, type OpenStore, type Store, type Tables } from '../../db/store/index.js';
import { metrics } from '../../metrics/index.js';
import { oncePer } from '../../once-per.js';
import { hashToken, newToken } from '../../security/tokens.js';
import { OAuthError } from '../errors.js';
import { CimdFetchError, type CimdFetchOptions, fetchClientMetadataDocument } from './cimd-fetch.js';
import { type ClientRow, clientRowCache } from './client-cache.js';
import { fetchOnceAtATime, type ReserveFetch } from './document-fetches.js';
import {
  applicationTypeOf,
  type ClientMetadata,
  clientMetadataSchema,
  describeMetadataError,
} from './metadata-schema.js';
import type { OAuthClient } from './types.js';

/** A dynamically registered client unused this long is purged, unless it has live grants. */
export const DCR_IDLE_TTL_MS = 30 * 24 * 3600 * 1000;
/** Bounds on how long a fetched metadata document is reused, whatever its Cache-Control says. */
const CIMD_MIN_TTL_S = 60;
const CIMD_DEFAULT_TTL_S = 3600;
const CIMD_MAX_TTL_S = 24 * 3600;

function toClient(row: ClientRow): OAuthClient {
  return {
    clientId: row.id,
    kind: row.kind,
    clientName: row.clientName,
    clientUri: row.clientUri,
    logoUri: row.logoUri,
    redirectUris: JSON.parse(row.redirectUris) as string[],
    grantTypes: JSON.parse(row.grantTypes) as string[],
    tokenEndpointAuthMethod: row.tokenEndpointAuthMethod as OAuthClient['tokenEndpointAuthMethod'],
    applicationType: row.applicationType,
    secretHash: row.secretHash,
    lastUsedAt: row.lastUsedAt,
    expiresAt: row.expiresAt,
  };
}

/** A URL client_id (CIMD): https with a path (draft-ietf-oauth-client-id-metadata-document §3). */
export function isUrlClientId(clientId: string): boolean {
  if (!clientId.startsWith('https://')) return false;
  // §3: "MUST NOT contain single-dot or double-dot path segments". URL parsing removes them, so look
  // at the raw path; otherwise `https://host/a/../b.json` would be fetched as `https://host/b.json`.
  const rawPath = (clientId.slice('https://'.length).split(/[?#]/)[0] ?? '').replace(/^[^/]*/, '');
  if (rawPath.split('/').some((segment) => /^(?:\.|%2e){1,2}$/i.test(segment))) return false;
  try {
    const url = new URL(clientId);
    return url.pathname !== '/' && !url.hash && !url.username && !url.password;
  } catch {
    return false;
  }
}

/** RFC 7591 §3: stores the metadata, returns the client (and its secret, once, if confidential). */
export async function registerDynamicClient(db: Store, metadata: ClientMetadata, now = Date.now()) {
  // RFC 7591 §2 default is client_secret_basic; MCP clients are public and say `none`.
  const method = metadata.token_endpoint_auth_method ?? 'client_secret_basic';
  const clientId = `sim_client_${newToken('clientSecret').slice(7, 31)}`;
  const secret = method === 'none' ? null : newToken('clientSecret');
  const grantTypes = metadata.grant_types.includes('refresh_token')
    ? metadata.grant_types
    : [...metadata.grant_types, 'refresh_token'];
  const row: Tables['oauthClients']['$inferInsert'] = {
    id: clientId,
    kind: 'dcr',
    secretHash: secret ? hashToken(secret) : null,
    tokenEndpointAuthMethod: method,
    clientName: metadata.client_name ?? null,
    clientUri: metadata.client_uri ?? null,
    logoUri: metadata.logo_uri ?? null,
    redirectUris: JSON.stringify(metadata.redirect_uris),
    grantTypes: JSON.stringify(grantTypes),
    responseTypes: JSON.stringify(metadata.response_types),
    applicationType: applicationTypeOf(metadata),
    scope: metadata.scope ?? null,
    metadata: JSON.stringify(metadata),
    createdAt: now,
    lastUsedAt: now,
    expiresAt: now + DCR_IDLE_TTL_MS,
  };
  await db.orm.insert(db.t.oauthClients).values(row);
  return {
    client: toClient(row as ClientRow),
    secret,
    issuedAt: Math.floor(now / 1000),
    metadata,
    grantTypes,
  };
}

/** The client row query, prepared once per store (every /token request runs it). */
function buildClientLookup(db: Store) {
  const { oauthClients } = db.t;
  return db.orm
    .select()
    .from(oauthClients)
    .where(eq(oauthClients.id, sql.placeholder('clientId')))
    .prepare('oauth_client_lookup');
}
const clientLookup = oncePer(buildClientLookup);

export interface ClientLookupOptions {
  cimd: CimdFetchOptions;
  /**
   * At /authorize a stale metadata document is fetched again; at /token the stored copy (verified
   * when the user authorized) is used, so a client's refreshes survive its website being down.
   */
  refreshStaleDocument: boolean;
  /** Counts a document fetch against the requester's budget (none: not counted, e.g. the CLI). */
  reserveFetch?: ReserveFetch;
}

/**
 * Finds a client by id: a DCR row, or a CIMD document (cached, fetched when missing or stale). The row
 * comes from the store's client cache (./client-cache.ts) when it holds it.
 */
export async function findClient(
  db: OpenStore,
  clientId: string,
  options: ClientLookupOptions,
  now = Date.now(),
): Promise<OAuthClient | null> {
  if (clientId.length > 2000) return null;
  const row = await clientRowCache(db).get(
    clientId,
    async () => (await clientLookup(db).execute({ clientId }))[0],
    now,
  );
  if (!isUrlClientId(clientId)) return row && row.kind === 'dcr' ? toClient(row) : null;
  if (row && (!options.refreshStaleDocument || (row.expiresAt ?? 0) > now)) return toClient(row);
  const fetched = await fetchOnceAtATime(db, clientId, {
    reserve: options.reserveFetch,
    storedFresh: async () => {
      const stored = (await clientLookup(db).execute({ clientId }))[0];
      return stored && (stored.expiresAt ?? 0) > now ? stored : undefined;
    },
    fetch: () => fetchAndStoreDocument(db, clientId, options.cimd, now),
  });
  return toClient(fetched);
}

async function fetchAndStoreDocument(
  db: Store,
  clientId: string,
  options: CimdFetchOptions,
  now: number,
): Promise<ClientRow> {
  let fetched: Awaited<ReturnType<typeof fetchClientMetadataDocument>>;
  try {
    fetched = await fetchClientMetadataDocument(clientId, options);
  } catch (error) {
    const reason = error instanceof CimdFetchError ? error.message : 'could not fetch the document';
    throw new OAuthError(
      'invalid_client',
      `The client metadata document at client_id could not be used: ${reason}.`,
    );
  }
  const body = fetched.body as Record<string, unknown> | null;
  if (!body || typeof body !== 'object' || Array.isArray(body)) {
    throw new OAuthError('invalid_client', 'The client metadata document is not a JSON object.');
  }
  // §4.1: the document's client_id MUST equal the URL it was fetched from, byte for byte.
  if (body.client_id !== clientId) {
    throw new OAuthError(
      'invalid_client',
      'The client metadata document names a different client_id than its URL.',
    );
  }
  // §4.1: no shared secrets in a public document.
  if ('client_secret' in body || 'client_secret_expires_at' in body) {
    throw new OAuthError('invalid_client', 'The client metadata document must not contain a client_secret.');
  }
  const parsed = clientMetadataSchema.safeParse(body);
  if (!parsed.success) {
    throw new OAuthError(
      'invalid_client',
      `The client metadata document is invalid: ${describeMetadataError(parsed.error)}.`,
    );
  }
  const method = parsed.data.token_endpoint_auth_method ?? 'none';
  if (method !== 'none') {
    throw new OAuthError(
      'invalid_client',
      'Clients identified by a metadata document must use token_endpoint_auth_method "none".',
    );
  }
  const ttl = Math.min(CIMD_MAX_TTL_S, Math.max(CIMD_MIN_TTL_S, fetched.maxAgeSeconds ?? CIMD_DEFAULT_TTL_S));
  metrics.clientRegistrations.labels('cimd').inc();
  const values = {
    kind: 'cimd' as const,
    secretHash: null,
    tokenEndpointAuthMethod: 'none',
    clientName: parsed.data.client_name ?? null,
    clientUri: parsed.data.client_uri ?? null,
    logoUri: parsed.data.logo_uri ?? null,
    redirectUris: JSON.stringify(parsed.data.redirect_uris),
    grantTypes: JSON.stringify(parsed.data.grant_types),
    responseTypes: JSON.stringify(parsed.data.response_types),
    applicationType: applicationTypeOf(parsed.data),
    scope: parsed.data.scope ?? null,
    metadata: JSON.stringify(parsed.data),
    lastUsedAt: now,
    expiresAt: now + ttl * 1000,
  };
  const { oauthClients } = db.t;
  const [row] = await db.orm
    .insert(oauthClients)
    .values({ id: clientId, createdAt: now, ...values })
    .onConflictDoUpdate({ target: oauthClients.id, set: values })
    .returning();
  if (!row) throw new Error('the client upsert returned no row');
  await db.invalidate(clientSubject(clientId));
  return row;
}

/** Expiry moves of less than this are not written: against a 30-day idle TTL a minute is nothing. */
const TOUCH_RESOLUTION_MS = 60_000;

/**
 * Marks a client as used. Pushes a DCR client's idle expiry forward (an idle DCR client expires, and each use
 * starts its idle time again); a CIMD row's expiry is its cache lifetime and stays. The row changes only when
 * the time has moved by a minute, and the client as just read says whether it has: a busy client's every
 * request pays no statement at all (on PostgreSQL a round trip), and the one that is due is a prepared UPDATE
 * whose condition is the same (another instance may have written it meanwhile).
 */
export async function touchClient(db: Store, client: OAuthClient, now = Date.now()): Promise<void> {
  const cutoff = now - TOUCH_RESOLUTION_MS;
  const expiryCutoff = now + DCR_IDLE_TTL_MS - TOUCH_RESOLUTION_MS;
  const due =
    client.lastUsedAt < cutoff ||
    (client.kind === 'dcr' && (client.expiresAt === null || client.expiresAt < expiryCutoff));
  if (!due) return;
  const statements = touchStatements(db);
  if (client.kind === 'dcr') {
    await statements.dcr.execute({
      id: client.clientId,
      now,
      cutoff,
      expiresAt: now + DCR_IDLE_TTL_MS,
      expiryCutoff,
    });
  } else {
    await statements.other.execute({ id: client.clientId, now, cutoff });
  }
  // The cached row's lastUsedAt is what says a touch is due: read it again after one.
  await db.invalidate(clientSubject(client.clientId));
}

function buildTouchStatements(db: Store) {
  const { oauthClients } = db.t;
  const p = sql.placeholder;
  return {
    dcr: db.orm
      .update(oauthClients)
      .set({ lastUsedAt: sql`${p('now')}`, expiresAt: sql`${p('expiresAt')}` })
      .where(
        and(
          eq(oauthClients.id, p('id')),
          or(
            lt(oauthClients.lastUsedAt, p('cutoff')),
            isNull(oauthClients.expiresAt),
            lt(oauthClients.expiresAt, p('expiryCutoff')),
          ),
        ),
      )
      .prepare('oauth_client_touch_dcr'),
    other: db.orm
      .update(oauthClients)
      .set({ lastUsedAt: sql`${p('now')}` })
      .where(and(eq(oauthClients.id, p('id')), lt(oauthClients.lastUsedAt, p('cutoff'))))
      .prepare('oauth_client_touch'),
  };
}
const touchStatements = oncePer(buildTouchStatements);
