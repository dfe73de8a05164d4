import { recordAudit } from '../audit/record.js';
import type { Store } from '../db/store/index.js';
import { hashToken, newId, newPersonalToken } from '../security/tokens.js';
import { formatScopes, type Scope } from './scopes.js';

/**
 * Access tokens for automation (a CI job, an agent without a browser). Each is a grant of kind
 * `access_token` holding one access token row with its own expiry and no refresh token, so the bearer
 * check, its cache and invalidations, team ceilings, write caps, ownership, audit and revocation apply
 * to it exactly as to a connected app of the same person, workspace and permissions: by construction,
 * not by a second copy of the rules. A separate table would have needed every one of them again.
 *
 * No OAuth client stands behind one: its client id is this prefix and the grant's id, which keeps the
 * one-live-grant-per-(user, client, workspace) index out of its way and names the token in the audit.
 */
export const ACCESS_TOKEN_CLIENT_PREFIX = 'access-token:';

export interface NewAccessToken {
  userId: string;
  workspaceId: string;
  name: string;
  scopes: readonly Scope[];
  /** Space-separated toolsets (null: every toolset) and read-only: what the token's connections see. */
  toolsets: string | null;
  readOnly: boolean;
  expiresAt: number;
  /** The RFC 8707 resource its token is bound to (the /mcp resource). */
  resource: string;
}

/**
 * Stores a new access token (hashed) and its grant, and audits its creation; the token itself is
 * returned once and never stored. The caller has checked the team's rules (src/teams/access-tokens.ts).
 */
export async function mintAccessToken(
  tx: Store,
  input: NewAccessToken,
  now = Date.now(),
): Promise<{ token: string; grantId: string }> {
  const { oauthGrants, oauthTokens } = tx.t;
  const grantId = newId();
  const clientId = `${ACCESS_TOKEN_CLIENT_PREFIX}${grantId}`;
  const scopes = formatScopes(input.scopes);
  const token = newPersonalToken();
  await tx.orm.insert(oauthGrants).values({
    id: grantId,
    userId: input.userId,
    workspaceId: input.workspaceId,
    clientId,
    kind: 'access_token',
    name: input.name,
    scopes,
    toolsets: input.toolsets,
    readOnly: input.readOnly,
    resource: input.resource,
    createdAt: now,
  });
  await tx.orm.insert(oauthTokens).values({
    tokenHash: hashToken(token),
    grantId,
    familyId: grantId,
    kind: 'access',
    scopes,
    createdAt: now,
    expiresAt: input.expiresAt,
  });
  await recordAudit(
    tx,
    {
      kind: 'access_token_created',
      workspaceId: input.workspaceId,
      userId: input.userId,
      clientId,
      detail: {
        name: input.name,
        scopes,
        expiresAt: input.expiresAt,
        ...(input.toolsets === null ? {} : { toolsets: input.toolsets }),
        ...(input.readOnly ? { readOnly: true } : {}),
      },
    },
    now,
  );
  return { token, grantId };
}
