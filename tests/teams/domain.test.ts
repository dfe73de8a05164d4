import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultUpstreamUserId } from '../../src/accounts/credentials.js';
import { getMembership } from '../../src/accounts/workspaces.js';
import { auditCsv, auditJson, exportAudit, parseAuditFilters, queryAudit } from '../../src/audit/query.js';
import { loadConfig } from '../../src/config.js';
import { first, type OpenStore, type Store } from '../../src/db/store/index.js';
import { purgeExpired } from '../../src/housekeeping/index.js';
import { hashToken, newToken } from '../../src/security/tokens.js';
import {
  listAppsForUser,
  listAppsForWorkspace,
  revokeOwnApp,
  revokeWorkspaceApp,
} from '../../src/teams/apps.js';
import {
  acceptInvite,
  createInvite,
  listInvites,
  lookupInvite,
  revokeInvite,
} from '../../src/teams/invites.js';
import { parseMemberPolicy, setMemberPolicy } from '../../src/teams/member-policy.js';
import {
  changeRole,
  createTeam,
  deleteTeam,
  leaveTeam,
  listMembers,
  removeMember,
  renameTeam,
} from '../../src/teams/teams.js';
import {
  reserveWriteCall,
  startOfUtcMonth,
  writesThisMonth,
  writesThisMonthQuery,
} from '../../src/teams/write-cap.js';
import { makeGrant, makeUser, teamDb } from '../helpers/database.js';
import { queryPlan } from '../helpers/query-plan.js';
import { TEST_SECRET_KEY } from '../helpers/temp.js';

let handle: Awaited<ReturnType<typeof teamDb>>;
let db: OpenStore;

beforeAll(async () => {
  handle = await teamDb();
  db = handle.db;
});
afterAll(() => handle.close());

function ok<T>(outcome: { ok: true; value: T } | { ok: false; message: string }): T {
  if (!outcome.ok) throw new Error(`refused: ${outcome.message}`);
  return outcome.value;
}

async function roleOf(workspaceId: string, userId: string) {
  return (await getMembership(db, workspaceId, userId))?.role ?? null;
}

async function auditKinds(workspaceId: string): Promise<string[]> {
  return (
    await db.orm
      .select({ kind: db.t.auditEvents.kind })
      .from(db.t.auditEvents)
      .where(eq(db.t.auditEvents.workspaceId, workspaceId))
  ).map((r) => r.kind);
}

/** A team with an owner, an admin and a member. */
async function team() {
  const owner = await makeUser(db, 'owner');
  const admin = await makeUser(db, 'admin');
  const member = await makeUser(db, 'member');
  const id = ok(await createTeam(db, owner.id, '  Research   Team '));
  const now = Date.now();
  await db.orm.insert(db.t.workspaceMembers).values([
    { workspaceId: id, userId: admin.id, role: 'admin', createdAt: now },
    { workspaceId: id, userId: member.id, role: 'member', createdAt: now },
  ]);
  return { id, owner, admin, member };
}

describe('team workspaces', () => {
  it('creates a team with the creator as its owner, a normalised name and an audit row', async () => {
    const owner = await makeUser(db);
    const id = ok(await createTeam(db, owner.id, '  Growth \t team '));
    const ws = await first(db.orm.select().from(db.t.workspaces).where(eq(db.t.workspaces.id, id)));
    expect(ws).toMatchObject({ name: 'Growth team', kind: 'team' });
    expect(await roleOf(id, owner.id)).toBe('owner');
    expect(await auditKinds(id)).toEqual(['team_created']);
  });

  it('refuses an empty, over-long or control-character name', async () => {
    const owner = await makeUser(db);
    for (const name of ['   ', 'x'.repeat(81), 'bad\u0007name']) {
      const outcome = await createTeam(db, owner.id, name);
      expect(outcome.ok).toBe(false);
      if (!outcome.ok) expect(outcome.field).toBe('name');
    }
  });

  it('admins rename; members cannot, and nothing changes', async () => {
    const t = await team();
    const refused = await renameTeam(db, t.id, t.member.id, 'Hijacked');
    expect(refused).toMatchObject({ ok: false, status: 403 });
    expect(
      (await first(db.orm.select().from(db.t.workspaces).where(eq(db.t.workspaces.id, t.id))))?.name,
    ).toBe('Research Team');
    ok(await renameTeam(db, t.id, t.admin.id, 'Research & Insight'));
    expect(
      (await first(db.orm.select().from(db.t.workspaces).where(eq(db.t.workspaces.id, t.id))))?.name,
    ).toBe('Research & Insight');
    expect(await auditKinds(t.id)).toContain('team_renamed');
  });

  it('someone outside the team gets "not found" for every action', async () => {
    const t = await team();
    const stranger = await makeUser(db, 'stranger');
    for (const outcome of [
      await renameTeam(db, t.id, stranger.id, 'x'),
      await deleteTeam(db, t.id, stranger.id, 'Research Team'),
      await changeRole(db, t.id, stranger.id, t.member.id, 'admin'),
      await removeMember(db, t.id, stranger.id, t.member.id),
      await leaveTeam(db, t.id, stranger.id),
      await createInvite(db, t.id, stranger.id, { role: 'member', maxUses: '1', expiresInDays: '7' }),
    ]) {
      expect(outcome).toMatchObject({ ok: false, status: 404 });
    }
  });

  it('only an owner deletes, and only with the exact name typed; members, grants and db.t.invites go with it', async () => {
    const t = await team();
    const grant = await makeGrant(db, t.member.id, t.id);
    ok(await createInvite(db, t.id, t.admin.id, { role: 'member', maxUses: '', expiresInDays: '7' }));
    expect(await deleteTeam(db, t.id, t.admin.id, 'Research Team')).toMatchObject({ ok: false, status: 403 });
    const wrong = await deleteTeam(db, t.id, t.owner.id, 'research team');
    expect(wrong).toMatchObject({ ok: false, status: 400, field: 'confirm' });
    expect(
      await first(db.orm.select().from(db.t.workspaces).where(eq(db.t.workspaces.id, t.id))),
    ).toBeTruthy();
    ok(await deleteTeam(db, t.id, t.owner.id, 'Research Team'));
    expect(
      await first(db.orm.select().from(db.t.workspaces).where(eq(db.t.workspaces.id, t.id))),
    ).toBeUndefined();
    expect(
      await db.orm.select().from(db.t.workspaceMembers).where(eq(db.t.workspaceMembers.workspaceId, t.id)),
    ).toEqual([]);
    expect(
      await first(db.orm.select().from(db.t.oauthGrants).where(eq(db.t.oauthGrants.id, grant))),
    ).toBeUndefined();
    expect(await db.orm.select().from(db.t.invites).where(eq(db.t.invites.workspaceId, t.id))).toEqual([]);
    expect(await auditKinds(t.id)).toContain('team_deleted');
  });

  it('a personal workspace cannot be deleted, renamed or left as a team', async () => {
    const u = await makeUser(db);
    expect(await deleteTeam(db, u.personalId, u.id, 'Personal')).toMatchObject({ ok: false, status: 400 });
    expect(await renameTeam(db, u.personalId, u.id, 'Mine')).toMatchObject({ ok: false, status: 400 });
    expect(await leaveTeam(db, u.personalId, u.id)).toMatchObject({ ok: false, status: 400 });
    expect(await roleOf(u.personalId, u.id)).toBe('owner');
  });
});

describe('roles and the last owner', () => {
  it('admins promote members; changing an admin’s role takes an owner; each change is audited', async () => {
    const t = await team();
    expect(ok(await changeRole(db, t.id, t.admin.id, t.member.id, 'admin'))).toEqual({
      from: 'member',
      to: 'admin',
    });
    expect(await roleOf(t.id, t.member.id)).toBe('admin');
    expect(await changeRole(db, t.id, t.admin.id, t.member.id, 'member')).toMatchObject({
      ok: false,
      status: 403,
    });
    expect(await removeMember(db, t.id, t.admin.id, t.member.id)).toMatchObject({ ok: false, status: 403 });
    expect(await roleOf(t.id, t.member.id)).toBe('admin');
    ok(await changeRole(db, t.id, t.owner.id, t.member.id, 'member'));
    expect(await roleOf(t.id, t.member.id)).toBe('member');
    expect((await auditKinds(t.id)).filter((k) => k === 'member_role_changed')).toHaveLength(2);
  });

  it('a member cannot change roles, not even their own', async () => {
    const t = await team();
    expect(await changeRole(db, t.id, t.member.id, t.member.id, 'admin')).toMatchObject({
      ok: false,
      status: 403,
    });
    expect(await changeRole(db, t.id, t.member.id, t.admin.id, 'member')).toMatchObject({
      ok: false,
      status: 403,
    });
    expect(await roleOf(t.id, t.member.id)).toBe('member');
    expect(await roleOf(t.id, t.admin.id)).toBe('admin');
  });

  it('an admin cannot make an owner or touch one', async () => {
    const t = await team();
    expect(await changeRole(db, t.id, t.admin.id, t.member.id, 'owner')).toMatchObject({
      ok: false,
      status: 403,
    });
    expect(await changeRole(db, t.id, t.admin.id, t.owner.id, 'member')).toMatchObject({
      ok: false,
      status: 403,
    });
    expect(await removeMember(db, t.id, t.admin.id, t.owner.id)).toMatchObject({ ok: false, status: 403 });
    expect(await roleOf(t.id, t.owner.id)).toBe('owner');
  });

  it('refuses an unknown role', async () => {
    const t = await team();
    expect(await changeRole(db, t.id, t.owner.id, t.member.id, 'superuser')).toMatchObject({
      ok: false,
      status: 400,
    });
  });

  it('the last owner cannot be demoted, leave or be removed; with a second owner they can', async () => {
    const t = await team();
    expect(await changeRole(db, t.id, t.owner.id, t.owner.id, 'admin')).toMatchObject({
      ok: false,
      status: 409,
    });
    expect(await leaveTeam(db, t.id, t.owner.id)).toMatchObject({ ok: false, status: 409 });
    expect(await roleOf(t.id, t.owner.id)).toBe('owner');
    ok(await changeRole(db, t.id, t.owner.id, t.admin.id, 'owner'));
    ok(await changeRole(db, t.id, t.owner.id, t.owner.id, 'admin'));
    expect(await roleOf(t.id, t.owner.id)).toBe('admin');
    // Now t.admin is the only owner: the former owner, an admin, cannot remove them.
    expect(await removeMember(db, t.id, t.owner.id, t.admin.id)).toMatchObject({ ok: false, status: 403 });
    expect(await leaveTeam(db, t.id, t.admin.id)).toMatchObject({ ok: false, status: 409 });
    ok(await leaveTeam(db, t.id, t.owner.id));
    expect(await roleOf(t.id, t.owner.id)).toBeNull();
  });

  it('removing a member revokes their grants in this workspace only and forgets their db.t.consents there', async () => {
    const t = await team();
    const here = await makeGrant(db, t.member.id, t.id);
    const elsewhere = await makeGrant(db, t.member.id, t.member.personalId);
    const now = Date.now();
    await db.orm.insert(db.t.consents).values({
      userId: t.member.id,
      clientId: 'client-1',
      workspaceId: t.id,
      scopes: 'searches:read',
      createdAt: now,
      updatedAt: now,
    });
    expect(await removeMember(db, t.id, t.member.id, t.admin.id)).toMatchObject({ ok: false, status: 403 });
    const removed = ok(await removeMember(db, t.id, t.admin.id, t.member.id));
    expect(removed).toEqual({ email: t.member.email, grantsRevoked: 1 });
    expect(await roleOf(t.id, t.member.id)).toBeNull();
    const grant = (id: string) =>
      first(db.orm.select().from(db.t.oauthGrants).where(eq(db.t.oauthGrants.id, id)));
    expect((await grant(here))?.revokedReason).toBe('member_removed');
    expect((await grant(elsewhere))?.revokedAt).toBeNull();
    expect(
      await db.orm
        .select()
        .from(db.t.consents)
        .where(and(eq(db.t.consents.userId, t.member.id), eq(db.t.consents.workspaceId, t.id))),
    ).toEqual([]);
    expect(await auditKinds(t.id)).toEqual(expect.arrayContaining(['member_removed', 'grant_revoked']));
    expect(await removeMember(db, t.id, t.admin.id, t.member.id)).toMatchObject({ ok: false, status: 404 });
  });
});

describe('invites', () => {
  const input = { role: 'member', maxUses: '1', expiresInDays: '7' };

  it('an admin creates a link; only its hash is stored; a member cannot create one', async () => {
    const t = await team();
    const created = ok(await createInvite(db, t.id, t.admin.id, input));
    expect(created.token).toMatch(/^sim_iv_[A-Za-z0-9_-]{43}$/);
    const row = await first(db.orm.select().from(db.t.invites).where(eq(db.t.invites.id, created.id)));
    expect(row?.tokenHash).toBe(hashToken(created.token));
    expect(JSON.stringify(row)).not.toContain(created.token);
    expect(JSON.stringify(await db.orm.select().from(db.t.auditEvents))).not.toContain(created.token);
    expect(await createInvite(db, t.id, t.member.id, input)).toMatchObject({ ok: false, status: 403 });
  });

  it('refuses bad fields, each with its own message', async () => {
    const t = await team();
    const outcome = await createInvite(db, t.id, t.admin.id, {
      role: 'owner',
      maxUses: '0',
      expiresInDays: '99',
    });
    expect(outcome.ok).toBe(false);
    if (!outcome.ok && 'errors' in outcome) {
      expect(Object.keys(outcome.errors).sort()).toEqual(['expiresInDays', 'maxUses', 'role']);
    } else throw new Error('expected field errors');
    expect(await listInvites(db, t.id)).toEqual([]);
  });

  it('a personal workspace takes no invites', async () => {
    const u = await makeUser(db);
    expect(await createInvite(db, u.personalId, u.id, input)).toMatchObject({ ok: false, status: 400 });
  });

  it('accepting joins with the invite role and spends a use; a single-use link then is used up', async () => {
    const t = await team();
    const created = ok(await createInvite(db, t.id, t.admin.id, { ...input, role: 'admin' }));
    const joiner = await makeUser(db, 'joiner');
    expect(ok(await acceptInvite(db, created.token, t.id, joiner.id))).toMatchObject({
      alreadyMember: false,
    });
    expect(await roleOf(t.id, joiner.id)).toBe('admin');
    expect(await auditKinds(t.id)).toContain('invite_accepted');
    const late = await makeUser(db, 'late');
    const refused = await acceptInvite(db, created.token, t.id, late.id);
    expect(refused).toMatchObject({ ok: false, status: 410 });
    if (!refused.ok) expect(refused.message).toMatch(/already been used/);
    expect(await roleOf(t.id, late.id)).toBeNull();
    expect((await lookupInvite(db, created.token))?.state).toBe('used_up');
  });

  it('a member accepting again spends nothing', async () => {
    const t = await team();
    const created = ok(await createInvite(db, t.id, t.admin.id, input));
    expect(ok(await acceptInvite(db, created.token, t.id, t.member.id))).toMatchObject({
      alreadyMember: true,
    });
    expect(
      (await first(db.orm.select().from(db.t.invites).where(eq(db.t.invites.id, created.id))))?.uses,
    ).toBe(0);
  });

  it('a forged token names nothing and joins no one', async () => {
    const t = await team();
    const forged = newToken('invite');
    const u = await makeUser(db);
    expect(await lookupInvite(db, forged)).toBeNull();
    const refused = await acceptInvite(db, forged, t.id, u.id);
    expect(refused).toMatchObject({ ok: false, status: 404 });
    if (!refused.ok) expect(refused.message).toMatch(/not valid/);
    expect(await acceptInvite(db, 'x'.repeat(500), t.id, u.id)).toMatchObject({ ok: false, status: 404 });
    expect(await roleOf(t.id, u.id)).toBeNull();
  });

  it('an expired invite is refused', async () => {
    const t = await team();
    const created = ok(await createInvite(db, t.id, t.admin.id, input, Date.now() - 8 * 24 * 3600 * 1000));
    const u = await makeUser(db);
    const refused = await acceptInvite(db, created.token, t.id, u.id);
    expect(refused).toMatchObject({ ok: false, status: 410 });
    if (!refused.ok) expect(refused.message).toMatch(/expired/);
    expect(await roleOf(t.id, u.id)).toBeNull();
  });

  it('a revoked invite is refused; revoking needs an admin and an invite of this workspace', async () => {
    const t = await team();
    const other = await team();
    const created = ok(await createInvite(db, t.id, t.admin.id, input));
    expect(await revokeInvite(db, t.id, t.member.id, created.id)).toMatchObject({ ok: false, status: 403 });
    // Cross-workspace id: an admin of another team names this invite through their own workspace.
    expect(await revokeInvite(db, other.id, other.admin.id, created.id)).toMatchObject({
      ok: false,
      status: 404,
    });
    expect((await lookupInvite(db, created.token))?.state).toBe('usable');
    ok(await revokeInvite(db, t.id, t.admin.id, created.id));
    const u = await makeUser(db);
    const refused = await acceptInvite(db, created.token, t.id, u.id);
    expect(refused).toMatchObject({ ok: false, status: 410 });
    if (!refused.ok) expect(refused.message).toMatch(/withdrawn/);
  });

  it('an invite used with another workspace id is refused and spends nothing', async () => {
    const t = await team();
    const other = await team();
    const created = ok(await createInvite(db, t.id, t.admin.id, input));
    const u = await makeUser(db);
    expect(await acceptInvite(db, created.token, other.id, u.id)).toMatchObject({ ok: false, status: 400 });
    expect(await roleOf(other.id, u.id)).toBeNull();
    expect(await roleOf(t.id, u.id)).toBeNull();
    expect((await lookupInvite(db, created.token))?.state).toBe('usable');
  });

  it('a multi-use invite admits that many people; an unlimited one admits all until expiry', async () => {
    const t = await team();
    const two = ok(await createInvite(db, t.id, t.admin.id, { ...input, maxUses: '2' }));
    const [a, b, c] = [await makeUser(db), await makeUser(db), await makeUser(db)];
    ok(await acceptInvite(db, two.token, t.id, a.id));
    ok(await acceptInvite(db, two.token, t.id, b.id));
    expect(await acceptInvite(db, two.token, t.id, c.id)).toMatchObject({ ok: false, status: 410 });
    const open = ok(await createInvite(db, t.id, t.admin.id, { ...input, maxUses: '' }));
    for (const u of [c, await makeUser(db), await makeUser(db)])
      ok(await acceptInvite(db, open.token, t.id, u.id));
    expect((await listInvites(db, t.id)).map((i) => [i.maxUses, i.uses, i.state])).toEqual(
      expect.arrayContaining([
        [2, 2, 'used_up'],
        [null, 3, 'usable'],
      ]),
    );
  });
});

describe('member policy', () => {
  it('parses upstream id, scope ceiling and cap; all scopes ticked means no ceiling', async () => {
    expect(
      parseMemberPolicy({
        upstreamUserId: ' analyst-7 ',
        maxScopes: ['searches:read', 'agent:read'],
        monthlyWriteCap: '5',
      }),
    ).toEqual({
      ok: true,
      value: { upstreamUserId: 'analyst-7', maxScopes: 'searches:read agent:read', monthlyWriteCap: 5 },
    });
    const all = [
      'searches:read',
      'searches:write',
      'agent:read',
      'agent:write',
      'account:read',
      'account:write',
    ];
    expect(parseMemberPolicy({ upstreamUserId: '', maxScopes: all, monthlyWriteCap: '' })).toEqual({
      ok: true,
      value: { upstreamUserId: null, maxScopes: null, monthlyWriteCap: null },
    });
    const bad = parseMemberPolicy({
      upstreamUserId: 'tab\there',
      maxScopes: ['root'],
      monthlyWriteCap: '-1',
    });
    expect(bad.ok).toBe(false);
    if (!bad.ok)
      expect(Object.keys(bad.errors).sort()).toEqual(['maxScopes', 'monthlyWriteCap', 'upstreamUserId']);
  });

  it('admins set it; members cannot; upstream ids stay distinct between members', async () => {
    const t = await team();
    const policy = { upstreamUserId: 'analyst-7', maxScopes: ['searches:read'], monthlyWriteCap: '3' };
    expect(await setMemberPolicy(db, t.id, t.member.id, t.member.id, policy)).toMatchObject({
      ok: false,
      status: 403,
    });
    ok(await setMemberPolicy(db, t.id, t.admin.id, t.member.id, policy));
    const row = (await listMembers(db, t.id)).find((m) => m.userId === t.member.id);
    expect(row).toMatchObject({
      upstreamUserId: 'analyst-7',
      upstreamUserIdSet: true,
      maxScopes: ['searches:read'],
      monthlyWriteCap: 3,
    });
    expect(
      await setMemberPolicy(db, t.id, t.admin.id, t.admin.id, { ...policy, maxScopes: [] }),
    ).toMatchObject({
      ok: false,
      status: 409,
      field: 'upstreamUserId',
    });
    // Nor may someone take another member's default id.
    expect(
      await setMemberPolicy(db, t.id, t.admin.id, t.admin.id, {
        upstreamUserId: defaultUpstreamUserId(t.owner.id),
        maxScopes: [],
        monthlyWriteCap: '',
      }),
    ).toMatchObject({ ok: false, status: 409 });
    expect(await auditKinds(t.id)).toContain('member_policy_changed');
    // Cleared: back to the stable default.
    ok(
      await setMemberPolicy(db, t.id, t.admin.id, t.member.id, {
        upstreamUserId: '',
        maxScopes: [],
        monthlyWriteCap: '',
      }),
    );
    expect((await listMembers(db, t.id)).find((m) => m.userId === t.member.id)).toMatchObject({
      upstreamUserId: defaultUpstreamUserId(t.member.id),
      upstreamUserIdSet: false,
      maxScopes: [],
      monthlyWriteCap: null,
    });
  });

  it('an admin cannot change an owner’s policy', async () => {
    const t = await team();
    expect(
      await setMemberPolicy(db, t.id, t.admin.id, t.owner.id, {
        upstreamUserId: '',
        maxScopes: [],
        monthlyWriteCap: '0',
      }),
    ).toMatchObject({ ok: false, status: 403 });
  });
});

/** The cap check as the tool path makes it, its reservation released at once (as after a refused call). */
async function checkWriteCap(
  db: Store,
  caller: { userId: string; workspaceId: string },
  tool: string,
): Promise<string | null> {
  const outcome = await reserveWriteCall(db, caller, tool);
  if (outcome.refusal === null) await outcome.release();
  return outcome.refusal;
}

describe('monthly write cap', () => {
  async function toolCall(
    workspaceId: string,
    userId: string,
    tool: string,
    status: string,
    at = Date.now(),
  ) {
    await db.orm
      .insert(db.t.auditEvents)
      .values({ at, kind: 'tool_call', workspaceId, userId, tool, status });
  }

  it('counts accepted credit-spending calls of this UTC month in this workspace only', async () => {
    const t = await team();
    const now = Date.UTC(2026, 10, 15, 12);
    await toolCall(t.id, t.member.id, 'submit_keyword_search', 'ok', now - 1000);
    await toolCall(t.id, t.member.id, 'start_agent_run', 'cancelled', now - 1000);
    await toolCall(t.id, t.member.id, 'submit_user_search', '402', now - 1000); // refused upstream
    await toolCall(t.id, t.member.id, 'submit_user_search', 'refused', now - 1000); // the cap itself
    await toolCall(t.id, t.member.id, 'get_keyword_search', 'ok', now - 1000); // a read
    await toolCall(t.id, t.member.id, 'create_agent_schedule', 'ok', startOfUtcMonth(now) - 1); // last month
    await toolCall(t.member.personalId, t.member.id, 'submit_expert_search', 'ok', now - 1000); // elsewhere
    await toolCall(t.id, t.admin.id, 'rerun_agent_run', 'ok', now - 1000); // someone else
    expect(await writesThisMonth(db, t.id, t.member.id, now)).toBe(2);
  });

  it('refuses with a sentence once the cap is reached; reads and uncapped members pass', async () => {
    const t = await team();
    expect(
      await checkWriteCap(db, { userId: t.member.id, workspaceId: t.id }, 'submit_keyword_search'),
    ).toBeNull();
    ok(
      await setMemberPolicy(db, t.id, t.admin.id, t.member.id, {
        upstreamUserId: '',
        maxScopes: [],
        monthlyWriteCap: '1',
      }),
    );
    expect(
      await checkWriteCap(db, { userId: t.member.id, workspaceId: t.id }, 'submit_keyword_search'),
    ).toBeNull();
    await toolCall(t.id, t.member.id, 'submit_keyword_search', 'ok');
    const refusal = await checkWriteCap(db, { userId: t.member.id, workspaceId: t.id }, 'start_agent_run');
    expect(refusal).toMatch(
      /^Monthly limit reached: a workspace admin allows you 1 credit-spending call per month/,
    );
    expect(refusal).toContain('start_agent_run was not sent upstream');
    expect(await checkWriteCap(db, { userId: t.member.id, workspaceId: t.id }, 'get_agent_run')).toBeNull();
    expect(await checkWriteCap(db, { userId: t.admin.id, workspaceId: t.id }, 'start_agent_run')).toBeNull();
    // A cap of 0: read-only spending.
    ok(
      await setMemberPolicy(db, t.id, t.admin.id, t.admin.id, {
        upstreamUserId: '',
        maxScopes: [],
        monthlyWriteCap: '0',
      }),
    );
    expect(await checkWriteCap(db, { userId: t.admin.id, workspaceId: t.id }, 'submit_user_search')).toMatch(
      /allows you 0/,
    );
  });

  it('the count query is index-backed (no full scan of the audit trail)', async () => {
    const text = await queryPlan(db, writesThisMonthQuery(db, 'w', 'u').toSQL());
    if (db.engine === 'sqlite') {
      expect(text).toMatch(/USING INDEX audit_user_at_idx/);
      expect(text).not.toMatch(/SCAN audit_events/);
    } else {
      // A near-empty table would be read whole anyway; with sequential scans priced out, the plan shows
      // that an index serves the query.
      expect(text).toMatch(/Index.*audit_user_at_idx/);
    }
  });
});

describe('connected apps', () => {
  it('a user lists and revokes only their own grants', async () => {
    const t = await team();
    const mine = await makeGrant(db, t.member.id, t.id);
    const theirs = await makeGrant(db, t.admin.id, t.id);
    expect((await listAppsForUser(db, t.member.id)).map((a) => a.grantId)).toEqual([mine]);
    expect(await revokeOwnApp(db, t.member.id, theirs)).toMatchObject({ ok: false, status: 404 });
    expect(
      (await first(db.orm.select().from(db.t.oauthGrants).where(eq(db.t.oauthGrants.id, theirs))))?.revokedAt,
    ).toBeNull();
    ok(await revokeOwnApp(db, t.member.id, mine));
    expect(await listAppsForUser(db, t.member.id)).toEqual([]);
    expect(await revokeOwnApp(db, t.member.id, mine)).toMatchObject({ ok: false, status: 404 });
  });

  it('admins see and revoke every grant of their workspace, not of another; members cannot', async () => {
    const t = await team();
    const other = await team();
    const g1 = await makeGrant(db, t.member.id, t.id);
    const g2 = await makeGrant(db, t.owner.id, t.id);
    const foreign = await makeGrant(db, other.member.id, other.id);
    expect((await listAppsForWorkspace(db, t.id)).map((a) => a.grantId).sort()).toEqual([g1, g2].sort());
    expect(await revokeWorkspaceApp(db, t.id, t.member.id, g2)).toMatchObject({ ok: false, status: 403 });
    expect(await revokeWorkspaceApp(db, t.id, t.admin.id, foreign)).toMatchObject({ ok: false, status: 404 });
    expect(
      (await first(db.orm.select().from(db.t.oauthGrants).where(eq(db.t.oauthGrants.id, foreign))))
        ?.revokedAt,
    ).toBeNull();
    ok(await revokeWorkspaceApp(db, t.id, t.admin.id, g1));
    expect(
      (await first(db.orm.select().from(db.t.oauthGrants).where(eq(db.t.oauthGrants.id, g1))))?.revokedReason,
    ).toBe('revoked_by_admin');
  });
});

describe('audit trail', () => {
  async function seed() {
    const t = await team();
    const other = await team();
    const day = (d: number, h = 12) => Date.UTC(2026, 10, d, h);
    const rows = [
      {
        at: day(1),
        kind: 'tool_call',
        workspaceId: t.id,
        userId: t.member.id,
        tool: 'submit_keyword_search',
        status: 'ok',
      },
      {
        at: day(2),
        kind: 'tool_call',
        workspaceId: t.id,
        userId: t.member.id,
        tool: 'get_keyword_search',
        status: 'ok',
      },
      {
        at: day(3),
        kind: 'tool_call',
        workspaceId: t.id,
        userId: t.admin.id,
        tool: 'submit_keyword_search',
        status: '402',
      },
      { at: day(4), kind: 'sign_in', workspaceId: null, userId: t.member.id, tool: null, status: 'ok' },
      {
        at: day(5),
        kind: 'tool_call',
        workspaceId: other.id,
        userId: other.member.id,
        tool: 'submit_keyword_search',
        status: 'ok',
      },
      { at: day(5), kind: 'sign_in', workspaceId: null, userId: other.member.id, tool: null, status: 'ok' },
    ];
    await db.orm.insert(db.t.auditEvents).values(rows);
    return { t, other };
  }
  const filters = (q: Record<string, string>) => parseAuditFilters(q).filters;

  it('shows the workspace’s rows and its members’ sign-ins, never another workspace’s', async () => {
    const { t } = await seed();
    const { rows } = await queryAudit(db, t.id, filters({ from: '2026-11-01', to: '2026-11-20' }));
    expect(rows.map((r) => [r.kind, r.tool])).toEqual([
      ['sign_in', null],
      ['tool_call', 'submit_keyword_search'],
      ['tool_call', 'get_keyword_search'],
      ['tool_call', 'submit_keyword_search'],
    ]);
    expect(rows.every((r) => r.userId !== null && [t.member.id, t.admin.id].includes(r.userId))).toBe(true);
  });

  it('filters by kind, member, tool and inclusive date range', async () => {
    const { t } = await seed();
    const range = { from: '2026-11-01', to: '2026-11-20' };
    const q = async (extra: Record<string, string>) =>
      (await queryAudit(db, t.id, filters({ ...range, ...extra }))).rows.length;
    expect(await q({ kind: 'tool_call' })).toBe(3);
    expect(await q({ member: t.admin.id })).toBe(1);
    expect(await q({ tool: 'submit_keyword_search' })).toBe(2);
    expect(await q({ tool: 'submit_keyword_search', member: t.member.id })).toBe(1);
    expect((await queryAudit(db, t.id, filters({ from: '2026-11-02', to: '2026-11-03' }))).rows).toHaveLength(
      2,
    );
    expect((await queryAudit(db, t.id, filters({ from: '2026-11-03', to: '2026-11-03' }))).rows).toHaveLength(
      1,
    );
  });

  it('reports bad filter values per field', async () => {
    const { errors, filters: f } = parseAuditFilters({
      kind: 'DROP TABLE',
      from: '2026-02-30',
      to: 'tomorrow',
      page: '-3',
    });
    expect(Object.keys(errors).sort()).toEqual(['from', 'kind', 'to']);
    expect(f).toMatchObject({ kind: null, from: null, to: null, page: 1 });
    expect(parseAuditFilters({ from: '2026-11-05', to: '2026-11-01' }).errors.to).toMatch(/before/);
  });

  it('paginates newest first without overlap', async () => {
    const { t } = await seed();
    const range = { from: '2026-11-01', to: '2026-11-20' };
    const p1 = await queryAudit(db, t.id, filters({ ...range, page: '1' }), 3);
    const p2 = await queryAudit(db, t.id, filters({ ...range, page: '2' }), 3);
    expect(p1.hasMore).toBe(true);
    expect(p2.hasMore).toBe(false);
    expect(p1.rows).toHaveLength(3);
    expect(p2.rows).toHaveLength(1);
    expect(p1.rows.map((r) => r.at)).toEqual([...p1.rows.map((r) => r.at)].sort((a, b) => b - a));
    expect((p1.rows.at(-1)?.at ?? 0) >= (p2.rows[0]?.at ?? 0)).toBe(true);
  });

  it('exports CSV (RFC 4180, formula-safe) and JSON with the same filters', async () => {
    const { t } = await seed();
    await db.orm.insert(db.t.auditEvents).values({
      at: Date.UTC(2026, 10, 6),
      kind: 'team_renamed',
      workspaceId: t.id,
      userId: t.admin.id,
      detail: JSON.stringify({ to: '=HYPERLINK("x")' }),
    });
    const rows = await exportAudit(db, t.id, filters({ from: '2026-11-01', to: '2026-11-20' }));
    const csv = auditCsv(rows);
    const lines = csv.trimEnd().split('\r\n');
    expect(lines[0]).toBe(
      'time,id,at,kind,userId,userEmail,clientId,clientName,tool,status,durationMs,detail',
    );
    expect(lines).toHaveLength(rows.length + 1);
    expect(lines[1]).toContain('team_renamed');
    expect(lines[1]).toContain('"{""to"":""=HYPERLINK(\\""x\\"")""}"');
    expect(lines[1]).toMatch(/^2026-11-06T00:00:00\.000Z,/);
    const json = auditJson(rows);
    expect(json[0]).toMatchObject({
      kind: 'team_renamed',
      detail: { to: '=HYPERLINK("x")' },
      time: '2026-11-06T00:00:00.000Z',
    });
    expect(
      await exportAudit(db, t.id, filters({ kind: 'tool_call', from: '2026-11-01', to: '2026-11-20' })),
    ).toHaveLength(3);
    // A cell that starts like a formula is neutralised.
    expect(auditCsv([{ ...rows[0], kind: '=1+1', detail: null } as never]).split('\r\n')[1]).toContain(
      ",'=1+1,",
    );
  });
});

describe('audit retention', () => {
  it('purgeExpired deletes audit rows older than the retention and keeps the rest', async () => {
    const now = Date.now();
    const day = 24 * 3600 * 1000;
    const marker = `retention-${now}`;
    await db.orm.insert(db.t.auditEvents).values([
      { at: now - 400 * day, kind: marker },
      { at: now - 100 * day, kind: marker },
      { at: now - day, kind: marker },
    ]);
    const left = async () =>
      (await db.orm.select().from(db.t.auditEvents).where(eq(db.t.auditEvents.kind, marker))).length;
    const firstRound = await purgeExpired(db, now);
    expect(firstRound.auditEvents).toBeGreaterThanOrEqual(1);
    expect(await left()).toBe(2); // default 365 days
    await purgeExpired(db, now, { auditRetentionDays: 30 });
    expect(await left()).toBe(1);
  });

  it('AUDIT_RETENTION_DAYS defaults to 365 and refuses nonsense', async () => {
    const base = { SECRET_KEY: TEST_SECRET_KEY, DATABASE_PATH: '/tmp/unused/x.db' };
    expect(loadConfig(base).auditRetentionDays).toBe(365);
    expect(loadConfig({ ...base, AUDIT_RETENTION_DAYS: '30' }).auditRetentionDays).toBe(30);
    expect(() => loadConfig({ ...base, AUDIT_RETENTION_DAYS: '0' })).toThrow(/AUDIT_RETENTION_DAYS/);
    expect(() => loadConfig({ ...base, AUDIT_RETENTION_DAYS: 'forever' })).toThrow(/AUDIT_RETENTION_DAYS/);
  });
});
