import { afterEach, describe, expect, it } from 'vitest';
import { removeUpstreamCredential, saveUpstreamCredential } from '../../../src/accounts/credentials.js';
import { grantSubject, openPostgresStore } from '../../../src/db/store/index.js';
import { type BearerCheck, verifyAccessToken } from '../../../src/mcp/auth/authenticate.js';
import { claimCode, createAuthorizationCode, findCode } from '../../../src/oauth/codes.js';
import { issueGrantForCode, revokeGrant } from '../../../src/oauth/grants.js';
import { SCOPES } from '../../../src/oauth/scopes.js';
import { revokeOwnApp } from '../../../src/teams/apps.js';
import { READ_ONLY_SCOPES, setMemberPolicy } from '../../../src/teams/member-policy.js';
import { changeRole, leaveTeam, removeMember } from '../../../src/teams/members.js';
import { setTeamSettings } from '../../../src/teams/team-settings.js';
import { deleteTeam } from '../../../src/teams/teams.js';
import { accepted, cachedCheck, heard, ok, teamWithMember } from '../../helpers/bearer-fixture.js';
import { runCli } from '../../helpers/cli.js';
import { testEngine } from '../../helpers/engine.js';
import { oauthFixture } from '../../helpers/oauth-fixture.js';
import { grantForClient, mcpStatus, revokeRequest, tokenRequest } from '../../helpers/oauth-http.js';
import { openRawSql } from '../../helpers/raw-sql.js';
import { TEST_SECRET_KEY } from '../../helpers/temp.js';

const fx = oauthFixture({ client: true });
const closing: BearerCheck[] = [];
afterEach(async () => {
  for (const c of closing.splice(0)) await c.close();
});

/** A bearer check on the server's store that has `token`'s answer in memory, as a busy client's is. */
async function warmed(token: string) {
  const check = await cachedCheck(fx.server);
  closing.push(check);
  const caller = accepted(await check.verify(token));
  expect(check.cached).toBe(1);
  return { check, caller };
}

const policy = { upstreamUserId: '', maxScopes: SCOPES, monthlyWriteCap: '' };

describe('a cached bearer answer ends with the write that changes it', () => {
  it('/revoke of an access token: refused on the very next request, by /mcp too', async () => {
    const g = await grantForClient(fx.server, fx.user, fx.clientId);
    const { check } = await warmed(g.accessToken);
    expect(await mcpStatus(fx.server, g.accessToken)).toBe(200);
    expect(await mcpStatus(fx.server, g.accessToken)).toBe(200);
    await revokeRequest(fx.server, { token: g.accessToken, client_id: fx.clientId });
    expect(await mcpStatus(fx.server, g.accessToken)).toBe(401);
    expect((await check.verify(g.accessToken)).ok).toBe(false);
  });

  it('/revoke of a refresh token (a client signing out): its family’s access token refused at once, the other device’s not', async () => {
    // Two devices: two token families in one grant, so the grant itself stays live.
    const otherDevice = await grantForClient(fx.server, fx.user, fx.clientId);
    const g = await grantForClient(fx.server, fx.user, fx.clientId);
    const { check } = await warmed(g.accessToken);
    accepted(await check.verify(otherDevice.accessToken));
    expect(await mcpStatus(fx.server, g.accessToken)).toBe(200);
    await revokeRequest(fx.server, { token: g.refreshToken, client_id: fx.clientId });
    expect(await mcpStatus(fx.server, g.accessToken)).toBe(401);
    expect((await check.verify(g.accessToken)).ok).toBe(false);
    accepted(await check.verify(otherDevice.accessToken));
    expect(await mcpStatus(fx.server, otherDevice.accessToken)).toBe(200);
  });

  it('refresh-token reuse revokes the family: its access token refused at once', async () => {
    const g = await grantForClient(fx.server, fx.user, fx.clientId);
    const { check } = await warmed(g.accessToken);
    expect(await mcpStatus(fx.server, g.accessToken)).toBe(200);
    const refresh = () =>
      tokenRequest(fx.server, {
        grant_type: 'refresh_token',
        refresh_token: g.refreshToken,
        client_id: fx.clientId,
      });
    expect((await refresh()).status).toBe(200);
    expect((await refresh()).status).toBe(200); // the one grace use
    expect((await refresh()).body.error).toBe('invalid_grant'); // reuse
    expect(await mcpStatus(fx.server, g.accessToken)).toBe(401);
    expect((await check.verify(g.accessToken)).ok).toBe(false);
  });

  it('a connected app revoked from the account or team pages', async () => {
    const t = await teamWithMember(fx.server);
    const { check } = await warmed(t.accessToken);
    ok(await revokeOwnApp(fx.server.db, t.member.id, t.grantId));
    expect((await check.verify(t.accessToken)).ok).toBe(false);
  });

  it('grants revoke on the admin command line, a process of its own on the same database', async () => {
    const t = await teamWithMember(fx.server);
    const { check } = await warmed(t.accessToken);
    // On PostgreSQL the command's NOTIFY arrives on its own; on SQLite the file's data_version moves.
    const notified =
      fx.server.engine === 'postgres'
        ? heard(fx.server.db, (s) => s === grantSubject(t.grantId))
        : Promise.resolve();
    const { databasePath, databaseUrl } = fx.server.config;
    const r = await runCli(['grants', 'revoke', '--grant', t.grantId], {
      DATABASE_PATH: databasePath,
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
      SECRET_KEY: TEST_SECRET_KEY,
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    await notified;
    expect(await check.verify(t.accessToken)).toEqual({ ok: false, reason: 'The access token was revoked.' });
  });

  it('a member removed, or leaving: refused at once, saying why', async () => {
    const removed = await teamWithMember(fx.server);
    const a = await warmed(removed.accessToken);
    ok(await removeMember(fx.server.db, removed.teamId, removed.owner.id, removed.member.id));
    expect(await a.check.verify(removed.accessToken)).toEqual({
      ok: false,
      reason: expect.stringMatching(/no longer a member/),
    });
    const leaving = await teamWithMember(fx.server);
    const b = await warmed(leaving.accessToken);
    ok(await leaveTeam(fx.server.db, leaving.teamId, leaving.member.id));
    expect((await b.check.verify(leaving.accessToken)).ok).toBe(false);
  });

  it('the team deleted: refused at once', async () => {
    const t = await teamWithMember(fx.server);
    const { check } = await warmed(t.accessToken);
    ok(await deleteTeam(fx.server.db, t.teamId, t.owner.id, (await teamName(t.teamId)) as string));
    expect((await check.verify(t.accessToken)).ok).toBe(false);
  });

  it('the member’s role', async () => {
    const t = await teamWithMember(fx.server);
    const { check, caller } = await warmed(t.accessToken);
    expect(caller.team.role).toBe('member');
    ok(await changeRole(fx.server.db, t.teamId, t.owner.id, t.member.id, 'admin'));
    expect(accepted(await check.verify(t.accessToken)).team.role).toBe('admin');
  });

  it('the member’s scope ceiling lowered: the scopes narrow at once', async () => {
    const t = await teamWithMember(fx.server);
    const { check, caller } = await warmed(t.accessToken);
    expect(caller.scopes).toEqual(SCOPES);
    const outcome = await setMemberPolicy(fx.server.db, t.teamId, t.owner.id, t.member.id, {
      ...policy,
      maxScopes: READ_ONLY_SCOPES,
    });
    expect(outcome.ok).toBe(true);
    const verified = await check.verify(t.accessToken);
    expect(accepted(verified).scopes).toEqual(READ_ONLY_SCOPES);
    expect(verified.ok && [...(verified.ceiling ?? [])]).toEqual(READ_ONLY_SCOPES);
  });

  it('the member’s team-webhook switch', async () => {
    const t = await teamWithMember(fx.server);
    const { check, caller } = await warmed(t.accessToken);
    expect(caller.team.canChangeWebhook).toBe(null);
    const outcome = await setMemberPolicy(fx.server.db, t.teamId, t.owner.id, t.member.id, {
      ...policy,
      canChangeWebhook: true,
    });
    expect(outcome.ok).toBe(true);
    expect(accepted(await check.verify(t.accessToken)).team.canChangeWebhook).toBe(true);
  });

  it('the member’s upstream user id', async () => {
    const t = await teamWithMember(fx.server);
    const { check, caller } = await warmed(t.accessToken);
    expect(caller.upstream?.userId).not.toBe('member-renamed');
    const outcome = await setMemberPolicy(fx.server.db, t.teamId, t.owner.id, t.member.id, {
      ...policy,
      upstreamUserId: 'member-renamed',
    });
    expect(outcome.ok).toBe(true);
    expect(accepted(await check.verify(t.accessToken)).upstream?.userId).toBe('member-renamed');
  });

  it('the team’s “members read team work” setting', async () => {
    const t = await teamWithMember(fx.server);
    const { check, caller } = await warmed(t.accessToken);
    expect(caller.team.membersReadTeamWork).toBe(true);
    ok(await setTeamSettings(fx.server.db, t.teamId, t.owner.id, { membersReadTeamWork: false }));
    expect(accepted(await check.verify(t.accessToken)).team.membersReadTeamWork).toBe(false);
  });

  it('the workspace’s upstream credential replaced, then unlinked', async () => {
    const t = await teamWithMember(fx.server);
    const { check, caller } = await warmed(t.accessToken);
    expect(caller.upstream?.token).toBe('team-upstream-token-1');
    await saveUpstreamCredential(fx.server.db, fx.server.secrets, {
      workspaceId: t.teamId,
      linkedBy: t.owner.id,
      token: 'team-upstream-token-2',
      upstreamUserId: 'team-owner',
      verifiedAt: Date.now(),
    });
    expect(accepted(await check.verify(t.accessToken)).upstream?.token).toBe('team-upstream-token-2');
    expect(await removeUpstreamCredential(fx.server.db, t.teamId, t.owner.id)).toBe(true);
    expect(accepted(await check.verify(t.accessToken)).upstream).toBe(null);
  });

  it('the grant renewed for another resource: its tokens are refused at once (audience, RFC 8707)', async () => {
    const t = await teamWithMember(fx.server);
    const { check } = await warmed(t.accessToken);
    const code = await createAuthorizationCode(fx.server.db, {
      clientId: 'bearer-cache-test-client',
      userId: t.member.id,
      workspaceId: t.teamId,
      redirectUri: 'http://localhost/callback',
      codeChallenge: 'x'.repeat(43),
      scopes: SCOPES,
      resource: 'https://other.example/mcp',
    });
    const row = await findCode(fx.server.db, code);
    if (!row || !(await claimCode(fx.server.db, row.codeHash))) throw new Error('code');
    await issueGrantForCode(fx.server.db, row, 3600_000);
    expect(await check.verify(t.accessToken)).toEqual({
      ok: false,
      reason: 'The access token was issued for another resource.',
    });
  });

  // What no write path announces: another connection's commit to the SQLite file (data_version).
  if (testEngine() === 'sqlite')
    it('SQLite: a row changed by another connection to the file, announced by nobody', async () => {
      const t = await teamWithMember(fx.server);
      const { check } = await warmed(t.accessToken);
      const raw = openRawSql(fx.server.config);
      try {
        await raw.run('UPDATE oauth_grants SET revoked_at = ? WHERE id = ?', Date.now(), t.grantId);
      } finally {
        await raw.close();
      }
      expect((await check.verify(t.accessToken)).ok).toBe(false);
    });

  if (testEngine() === 'postgres')
    it('PostgreSQL: a grant revoked by another instance on the same database is heard by NOTIFY', async () => {
      const t = await teamWithMember(fx.server);
      const { check } = await warmed(t.accessToken);
      const other = openPostgresStore(fx.server.config.databaseUrl as string);
      try {
        const notified = heard(fx.server.db, (s) => s === grantSubject(t.grantId));
        await revokeGrant(other, t.grantId, 'revoked_by_admin');
        await notified;
        expect((await check.verify(t.accessToken)).ok).toBe(false);
      } finally {
        await other.close();
      }
    });

  it('what the cache answers is what the uncached lookup answers after each of these', async () => {
    const t = await teamWithMember(fx.server);
    const { check } = await warmed(t.accessToken);
    ok(await changeRole(fx.server.db, t.teamId, t.owner.id, t.member.id, 'admin'));
    const uncached = await verifyAccessToken(
      fx.server.db,
      fx.server.secrets,
      fx.server.config,
      t.accessToken,
    );
    const cached = await check.verify(t.accessToken);
    expect(accepted(cached).team).toEqual(accepted(uncached).team);
    expect(accepted(cached).scopes).toEqual(accepted(uncached).scopes);
  });
});

async function teamName(workspaceId: string) {
  const row = (await fx.server.sql.get('SELECT name FROM workspaces WHERE id = ?', workspaceId)) as
    | { name: string }
    | undefined;
  return row?.name;
}
