import { saveUpstreamCredential } from '../../src/accounts/credentials.js';
import { createUser } from '../../src/accounts/users.js';
import { claimCode, createAuthorizationCode, findCode } from '../../src/oauth/codes.js';
import { issueGrantForCode } from '../../src/oauth/grants.js';
import { SCOPES, type Scope } from '../../src/oauth/scopes.js';
import type { TestServer } from './server.js';

export interface TestGrant {
  accessToken: string;
  refreshToken: string;
  userId: string;
  workspaceId: string;
  clientId: string;
}

let counter = 0;

/**
 * A signed-up user with linked upstream credentials and an access token for /mcp, made through the
 * same functions the sign-up page, credentials page and token endpoint use; only the browser and the
 * HTTP code exchange are skipped. For tests of the tools; the OAuth tests drive the real flow.
 */
export async function issueTestToken(
  server: TestServer,
  options: {
    scopes?: readonly Scope[];
    /** null: the workspace has no credential linked. */
    upstreamToken: string | null;
    upstreamUserId?: string;
    clientId?: string;
  },
): Promise<TestGrant> {
  counter += 1;
  const created = await createUser(server.db, {
    email: `tools-${process.pid}-${counter}-${Date.now()}@example.com`,
    password: 'correct horse battery staple',
  });
  if (!created.ok) throw new Error(`could not create the test user: ${created.reason}`);
  const workspaceId = created.personalWorkspaceId;
  if (options.upstreamToken !== null) {
    await saveUpstreamCredential(server.db, server.secrets, {
      workspaceId,
      linkedBy: created.user.id,
      token: options.upstreamToken,
      upstreamUserId: options.upstreamUserId ?? `user-${counter}`,
      verifiedAt: Date.now(),
    });
  }
  const clientId = options.clientId ?? 'test-client';
  const tokens = await grantThroughCode(server, {
    userId: created.user.id,
    workspaceId,
    clientId,
    scopes: options.scopes ?? SCOPES,
    ttlMs: server.config.oauth.accessTokenTtlSeconds * 1000,
  });
  return {
    accessToken: tokens.access_token,
    refreshToken: tokens.refresh_token,
    userId: created.user.id,
    workspaceId,
    clientId,
  };
}

/**
 * A grant for an existing member, as the token endpoint makes it from an authorization code (created,
 * claimed, exchanged through the same functions); the tokens it answers with.
 */
export async function grantThroughCode(
  server: Pick<TestServer, 'db' | 'config'>,
  grant: { userId: string; workspaceId: string; clientId: string; scopes?: readonly Scope[]; ttlMs?: number },
) {
  const code = await createAuthorizationCode(server.db, {
    clientId: grant.clientId,
    userId: grant.userId,
    workspaceId: grant.workspaceId,
    redirectUri: 'http://localhost/callback',
    codeChallenge: 'x'.repeat(43),
    scopes: grant.scopes ?? SCOPES,
    resource: server.config.resourceUrl,
  });
  const row = await findCode(server.db, code);
  if (!row || !(await claimCode(server.db, row.codeHash))) throw new Error('could not claim the test code');
  return issueGrantForCode(server.db, row, grant.ttlMs ?? 3_600_000);
}
