import { and, eq, sql } from 'drizzle-orm';
import { defaultUpstreamUserId } from '../../accounts/credentials.js';
import type { Config } from '../../config.js';
import type { InvalidationWatch, OpenStore, Store } from '../../db/store/index.js';
import { revokeGrant } from '../../oauth/grants.js';
import { parseScopes, type Scope } from '../../oauth/scopes.js';
import { oncePer } from '../../once-per.js';
import type { SecretBox } from '../../security/secrets.js';
import { hashToken } from '../../security/tokens.js';
import { storedSelection } from '../tools/toolsets.js';
import { automationExpiry, TOKEN_NOT_A_MEMBER, TOKENS_OFF } from './access-token-rules.js';
import { BearerCache, type BearerOwner } from './bearer-cache.js';
import type { Caller, MemberCaller } from './caller.js';
import { recordRemovedMemberRefusal } from './removed-member.js';

/** last_used_at is written at most this often per grant, so a busy client costs no write per call. */
const LAST_USED_RESOLUTION_MS = 60_000;
/** Opaque access tokens are prefix + 43 base64url characters; anything far off is not worth a lookup. */
const MAX_TOKEN_LENGTH = 200;

/**
 * The token → caller query, prepared once per store: building its SQL cost more than running it, and
 * on PostgreSQL it is then one named statement, parsed and planned once per connection.
 */
function buildLookup(db: Store) {
  const { oauthTokens, oauthGrants, workspaceMembers, upstreamCredentials, workspaces } = db.t;
  return db.orm
    .select({
      kind: oauthTokens.kind,
      tokenScopes: oauthTokens.scopes,
      expiresAt: oauthTokens.expiresAt,
      tokenRevokedAt: oauthTokens.revokedAt,
      grantId: oauthGrants.id,
      userId: oauthGrants.userId,
      workspaceId: oauthGrants.workspaceId,
      clientId: oauthGrants.clientId,
      grantScopes: oauthGrants.scopes,
      grantKind: oauthGrants.kind,
      grantCreatedAt: oauthGrants.createdAt,
      grantToolsets: oauthGrants.toolsets,
      grantReadOnly: oauthGrants.readOnly,
      resource: oauthGrants.resource,
      grantRevokedAt: oauthGrants.revokedAt,
      grantRevokedReason: oauthGrants.revokedReason,
      lastUsedAt: oauthGrants.lastUsedAt,
      member: workspaceMembers.userId,
      memberUpstreamUserId: workspaceMembers.upstreamUserId,
      memberMaxScopes: workspaceMembers.maxScopes,
      memberRole: workspaceMembers.role,
      memberCanChangeWebhook: workspaceMembers.canChangeWebhook,
      membersReadTeamWork: workspaces.membersReadTeamWork,
      accessTokensAllowed: workspaces.accessTokensAllowed,
      accessTokenMaxDays: workspaces.accessTokenMaxDays,
      tokenCiphertext: upstreamCredentials.tokenCiphertext,
    })
    .from(oauthTokens)
    .innerJoin(oauthGrants, eq(oauthGrants.id, oauthTokens.grantId))
    .leftJoin(
      workspaceMembers,
      and(
        eq(workspaceMembers.workspaceId, oauthGrants.workspaceId),
        eq(workspaceMembers.userId, oauthGrants.userId),
      ),
    )
    .leftJoin(upstreamCredentials, eq(upstreamCredentials.workspaceId, oauthGrants.workspaceId))
    .leftJoin(workspaces, eq(workspaces.id, oauthGrants.workspaceId))
    .where(eq(oauthTokens.tokenHash, sql.placeholder('tokenHash')))
    .prepare('bearer_lookup');
}
const lookup = oncePer(buildLookup);

/** A valid access token's caller, and what the route needs besides. */
export interface VerifiedBearer {
  ok: true;
  caller: MemberCaller;
  expiresAt: number;
  /**
   * The member's scope ceiling (team policy), null for none. A scope outside it is one no
   * re-authorization can grant: /mcp answers such a call with a tool error, not a step-up 403.
   */
  ceiling: ReadonlySet<Scope> | null;
}

export type BearerRefusal = { ok: false; reason: string };
export type BearerResult = VerifiedBearer | BearerRefusal;

/** Revocation reasons that mean the person's membership of the grant's workspace ended. */
const MEMBERSHIP_ENDED = new Set(['member_removed', 'member_left']);
const NOT_A_MEMBER =
  'You are no longer a member of the workspace this app was connected to. Connect the app again and choose one of your workspaces.';
const MALFORMED: BearerRefusal = { ok: false, reason: 'The access token is malformed.' };
const EXPIRED: BearerRefusal = { ok: false, reason: 'The access token has expired.' };
/** A lookup's answer for a valid token, with what the cache keeps beside it. */
interface Resolved {
  verified: VerifiedBearer;
  owner: BearerOwner;
  lastUsedAt: number | null;
}

/**
 * Resolves an access token to its caller in one indexed query: token → grant → membership →
 * workspace credential. Refused when unknown, expired, revoked, bound to another resource (audience,
 * RFC 8707), or when the user is no longer a member of the grant's workspace. Uncached: /mcp goes
 * through BearerCheck.
 */
export async function verifyAccessToken(
  db: Store,
  secrets: SecretBox,
  config: Config,
  token: string,
  now = Date.now(),
): Promise<BearerResult> {
  if (token.length > MAX_TOKEN_LENGTH) return MALFORMED;
  const found = await resolve(db, secrets, config, hashToken(token), now);
  if (!('verified' in found)) return found;
  await touch(db, found, now);
  return found.verified;
}

async function resolve(
  db: Store,
  secrets: SecretBox,
  config: Config,
  tokenHash: string,
  now: number,
): Promise<Resolved | BearerRefusal> {
  const [row] = await lookup(db).execute({ tokenHash });
  if (row?.kind !== 'access') return { ok: false, reason: 'The access token is not valid.' };
  const forAutomation = row.grantKind === 'access_token';
  const notAMember = forAutomation ? TOKEN_NOT_A_MEMBER : NOT_A_MEMBER;
  if (row.grantRevokedReason !== null && MEMBERSHIP_ENDED.has(row.grantRevokedReason)) {
    await recordRemovedMemberRefusal(db, row, now);
    return { ok: false, reason: notAMember };
  }
  if (row.tokenRevokedAt !== null || row.grantRevokedAt !== null)
    return { ok: false, reason: 'The access token was revoked.' };
  const expiresAt = forAutomation ? automationExpiry(row) : row.expiresAt;
  if (expiresAt <= now) return EXPIRED;
  if (row.resource !== config.resourceUrl)
    return { ok: false, reason: 'The access token was issued for another resource.' };
  if (row.member === null || row.memberRole === null) {
    // The membership ended some way that left the grant live: it ends now, as removal would end it.
    await revokeGrant(db, row.grantId, 'member_removed', now);
    await recordRemovedMemberRefusal(db, row, now);
    return { ok: false, reason: notAMember };
  }
  // Turning access tokens off revokes them; this also refuses one made in the same instant.
  if (forAutomation && row.accessTokensAllowed === false) return TOKENS_OFF;

  // A member's ceiling lowered after the grant takes effect now, not at the next sign-in.
  const ceiling = row.memberMaxScopes === null ? null : new Set(parseScopes(row.memberMaxScopes));
  let scopes = parseScopes(row.tokenScopes ?? row.grantScopes);
  if (ceiling) scopes = scopes.filter((s) => ceiling.has(s));
  // Decrypted on first use only: tools/list, initialize and pings never need the upstream token, and
  // an AES-GCM open is a tenth of such a request's CPU. Kept with the caller, so a cached caller
  // opens it once.
  const { tokenCiphertext, workspaceId, userId } = row;
  const upstreamUserId = row.memberUpstreamUserId ?? defaultUpstreamUserId(userId);
  let upstream: Caller['upstream'] | undefined;
  return {
    owner: { grantId: row.grantId, workspaceId, userId },
    lastUsedAt: row.lastUsedAt,
    verified: {
      ok: true,
      expiresAt,
      ceiling,
      caller: {
        kind: 'member',
        connectionKey: row.grantId,
        grantId: row.grantId,
        userId,
        workspaceId,
        clientId: row.clientId,
        scopes,
        grantKind: row.grantKind,
        selection: storedSelection(row.grantToolsets, row.grantReadOnly),
        team: {
          role: row.memberRole,
          canChangeWebhook: row.memberCanChangeWebhook,
          membersReadTeamWork: row.membersReadTeamWork ?? true,
        },
        get upstream() {
          upstream ??= tokenCiphertext
            ? { token: secrets.open(tokenCiphertext, workspaceId), userId: upstreamUserId }
            : null;
          return upstream;
        },
      },
    },
  };
}

/** last_used_at, written at most once a LAST_USED_RESOLUTION_MS per grant and answer. */
async function touch(db: Store, resolved: Resolved, now: number): Promise<void> {
  if (resolved.lastUsedAt !== null && now - resolved.lastUsedAt <= LAST_USED_RESOLUTION_MS) return;
  // Noted before the write: concurrent requests on a cached answer write once.
  resolved.lastUsedAt = now;
  const { oauthGrants } = db.t;
  await db.orm.update(oauthGrants).set({ lastUsedAt: now }).where(eq(oauthGrants.id, resolved.owner.grantId));
}

/** How long a valid token's answer is reused, and how many are kept. */
export interface BearerCacheOptions {
  ttlMs: number;
  maxEntries: number;
}

/**
 * A few seconds: enough that a busy client costs one lookup per few seconds rather than one per
 * request; short, because it bounds what a lost invalidation (a PostgreSQL connection that died
 * silently, a row changed by hand in psql) could leave behind.
 */
export const DEFAULT_BEARER_CACHE: BearerCacheOptions = { ttlMs: 5_000, maxEntries: 10_000 };

/**
 * The bearer check of /mcp: verifyAccessToken with the answers of valid tokens kept for a few seconds
 * (BearerCache). Every write that changes an answer invalidates it through the store (this process at
 * once, other instances by NOTIFY, another process on the SQLite file through data_version); while the
 * store cannot vouch for that (PostgreSQL's listening connection down) every request is looked up.
 * Expiry is still checked on every request, and last_used_at still written once a minute. Access tokens
 * made for automation are never kept (below).
 */
export class BearerCheck {
  private readonly cache: BearerCache<Resolved>;
  private readonly watch: InvalidationWatch;

  constructor(
    private readonly db: OpenStore,
    private readonly secrets: SecretBox,
    private readonly config: Config,
    options: BearerCacheOptions = DEFAULT_BEARER_CACHE,
  ) {
    this.cache = new BearerCache(options);
    this.watch = db.watchInvalidations((subject) => this.cache.invalidate(subject));
  }

  async verify(token: string, now = Date.now()): Promise<BearerResult> {
    if (token.length > MAX_TOKEN_LENGTH) return MALFORMED;
    const key = hashToken(token);
    // check() first: on SQLite it is what brings another process's commits in.
    const usable = this.watch.check();
    const hit = usable ? this.cache.get(key, now) : undefined;
    if (hit) {
      if (hit.verified.expiresAt <= now) {
        this.cache.forget(key);
        return EXPIRED;
      }
      await touch(this.db, hit, now);
      return hit.verified;
    }
    const stamp = this.cache.stamp();
    const found = await resolve(this.db, this.secrets, this.config, key, now);
    if (!('verified' in found)) return found;
    // An access token for automation is looked up on every request: its revocation then holds on every
    // instance from its commit, not from when PostgreSQL delivers the NOTIFY (a script retries at once;
    // a person revoking a leaked token expects it dead when the page answers).
    if (usable && found.verified.caller.grantKind === 'oauth')
      this.cache.store(key, stamp, found.owner, found, now);
    await touch(this.db, found, now);
    return found.verified;
  }

  /** Resolves once cached answers can be used (PostgreSQL: listening for other instances' writes). */
  get ready(): Promise<void> {
    return this.watch.ready;
  }

  /** Answers kept now (tests). */
  get cached(): number {
    return this.cache.size;
  }

  close(): Promise<void> {
    return this.watch.stop();
  }
}
