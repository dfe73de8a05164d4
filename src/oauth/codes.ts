import { and, eq, isNull } from 'drizzle-orm';
import { first, type Store, type Tables } from '../db/store/index.js';
import { hashToken, newToken } from '../security/tokens.js';
import { formatScopes, type Scope } from './scopes.js';

/** An authorization code lives a minute at most, and is used once (docs/oauth.md, Rules worth knowing). */
export const CODE_TTL_MS = 60_000;

export interface CodeRequest {
  clientId: string;
  userId: string;
  workspaceId: string;
  redirectUri: string;
  /** Whether the authorization request named redirect_uri (default true: /token must repeat it). */
  redirectUriSent?: boolean;
  codeChallenge: string;
  scopes: readonly Scope[];
  /** Toolsets chosen at consent (space-separated; null: every toolset) and read-only, for the grant. */
  toolsets?: string | null;
  readOnly?: boolean;
  resource: string;
}

/** Stores an authorization code (hashed) and returns it. */
export async function createAuthorizationCode(
  db: Store,
  request: CodeRequest,
  now = Date.now(),
): Promise<string> {
  const code = newToken('code');
  await db.orm.insert(db.t.oauthCodes).values({
    codeHash: hashToken(code),
    clientId: request.clientId,
    userId: request.userId,
    workspaceId: request.workspaceId,
    redirectUri: request.redirectUri,
    redirectUriSent: request.redirectUriSent ?? true,
    codeChallenge: request.codeChallenge,
    scopes: formatScopes(request.scopes),
    toolsets: request.toolsets ?? null,
    readOnly: request.readOnly ?? false,
    resource: request.resource,
    createdAt: now,
    expiresAt: now + CODE_TTL_MS,
  });
  return code;
}

export type CodeRow = Tables['oauthCodes']['$inferSelect'];

export async function findCode(db: Store, code: string): Promise<CodeRow | undefined> {
  const { oauthCodes } = db.t;
  return first(
    db.orm
      .select()
      .from(oauthCodes)
      .where(eq(oauthCodes.codeHash, hashToken(code))),
  );
}

/**
 * Marks a code used, atomically: of two concurrent exchanges exactly one wins (the UPDATE matches
 * only while used_at is null; on PostgreSQL the second waits for the first's row lock, re-checks the
 * condition once it commits, and matches nothing).
 */
export async function claimCode(db: Store, codeHash: string, now = Date.now()): Promise<boolean> {
  const { oauthCodes: c } = db.t;
  const won = await db.orm
    .update(c)
    .set({ usedAt: now })
    .where(and(eq(c.codeHash, codeHash), isNull(c.usedAt)))
    .returning({ codeHash: c.codeHash });
  return won.length === 1;
}
