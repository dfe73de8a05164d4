import { saveUpstreamCredential } from '../../src/accounts/credentials.js';
import { createUser } from '../../src/accounts/users.js';
import type { OpenStore } from '../../src/db/store/index.js';
import { type BearerCacheOptions, BearerCheck, type BearerResult } from '../../src/mcp/auth/authenticate.js';
import { claimCode, createAuthorizationCode, findCode } from '../../src/oauth/codes.js';
import { issueGrantForCode } from '../../src/oauth/grants.js';
import { SCOPES } from '../../src/oauth/scopes.js';
import { hashToken } from '../../src/security/tokens.js';
import { acceptInvite, createInvite } from '../../src/teams/invites.js';
import { createTeam } from '../../src/teams/teams.js';
import type { TestServer } from './server.js';

let counter = 0;

export function ok<T>(outcome: { ok: true; value: T } | { ok: false; message: string }): T {
  if (!outcome.ok) throw new Error(outcome.message);
  return outcome.value;
}

export async function person(server: TestServer, label: string) {
  counter += 1;
  const created = await createUser(server.db, {
    email: `${label}-${counter}-${process.pid}@example.com`,
    password: 'correct horse battery staple',
  });
  if (!created.ok) throw new Error(created.reason);
  return { id: created.user.id, email: created.user.email, personalId: created.personalWorkspaceId };
}

/** An access token (and its refresh token) through the token endpoint's own functions. */
export async function issueTokens(
  server: TestServer,
  userId: string,
  workspaceId: string,
  options: { clientId?: string; resource?: string } = {},
) {
  const { db, config } = server;
  const code = await createAuthorizationCode(db, {
    clientId: options.clientId ?? 'bearer-cache-test-client',
    userId,
    workspaceId,
    redirectUri: 'http://localhost/callback',
    codeChallenge: 'x'.repeat(43),
    scopes: SCOPES,
    resource: options.resource ?? config.resourceUrl,
  });
  const row = await findCode(db, code);
  if (!row || !(await claimCode(db, row.codeHash))) throw new Error('code');
  const tokens = await issueGrantForCode(db, row, 3600_000);
  const grant = (await server.sql.get(
    'SELECT grant_id FROM oauth_tokens WHERE token_hash = ?',
    hashToken(tokens.access_token),
  )) as { grant_id: string };
  return { accessToken: tokens.access_token, refreshToken: tokens.refresh_token, grantId: grant.grant_id };
}

/** A team with a linked credential, its owner, and a plain member holding an access token in it. */
export async function teamWithMember(server: TestServer) {
  const owner = await person(server, 'owner');
  const member = await person(server, 'member');
  const teamId = ok(await createTeam(server.db, owner.id, `Cache Team ${counter}`));
  await saveUpstreamCredential(server.db, server.secrets, {
    workspaceId: teamId,
    linkedBy: owner.id,
    token: 'team-upstream-token-1',
    upstreamUserId: 'team-owner',
    verifiedAt: Date.now(),
  });
  const invite = ok(
    await createInvite(server.db, teamId, owner.id, { role: 'member', maxUses: '1', expiresInDays: '1' }),
  );
  ok(await acceptInvite(server.db, invite.token, teamId, member.id));
  const tokens = await issueTokens(server, member.id, teamId);
  return { owner, member, teamId, ...tokens };
}

/**
 * A bearer check over the server's own store, as the server's is (so every write the server or the
 * test makes through that store reaches it), ready to cache; closed by the returned close().
 */
export async function cachedCheck(
  server: TestServer,
  options: BearerCacheOptions = { ttlMs: 3_600_000, maxEntries: 100 },
) {
  const check = new BearerCheck(server.db, server.secrets, server.config, options);
  await check.ready;
  return check;
}

/** The caller of an accepted token, or a failure naming the refusal. */
export function accepted(result: BearerResult) {
  if (!result.ok) throw new Error(`refused: ${result.reason}`);
  return result.caller;
}

/**
 * Resolves when `store`'s watchers have heard a subject `match` accepts: every watcher of a store hears
 * a subject in the same synchronous delivery, so by then a bearer check on that store has too (for
 * invalidations that arrive from another process, by NOTIFY).
 */
export function heard(store: OpenStore, match: (subject: string) => boolean): Promise<void> {
  return new Promise((resolve) => {
    const watch = store.watchInvalidations((subject) => {
      if (!match(subject)) return;
      void watch.stop();
      resolve();
    });
  });
}
