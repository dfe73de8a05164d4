import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { first, type OpenStore } from '../../src/db/store/index.js';
import { createInvite } from '../../src/teams/invites.js';
import { changeRole, leaveTeam, removeMember } from '../../src/teams/members.js';
import { createTeam, deleteTeam, renameTeam } from '../../src/teams/teams.js';
import { makeGrant, makeUser, teamDb } from '../helpers/database.js';
import { auditKinds, roleOf, teamOfThree } from '../helpers/team-domain.js';
import { ok } from '../helpers/team-fixture.js';

/**
 * A team's life in the domain functions (src/teams/teams.ts, src/teams/members.ts): creating, renaming and deleting a team,
 * changing roles, the last owner, removing a member and leaving.
 */
let handle: Awaited<ReturnType<typeof teamDb>>;
let db: OpenStore;

beforeAll(async () => {
  handle = await teamDb();
  db = handle.db;
});
afterAll(() => handle.close());

describe('team workspaces', () => {
  it('creates a team with the creator as its owner, a normalised name and an audit row', async () => {
    const owner = await makeUser(db);
    const id = ok(await createTeam(db, owner.id, '  Growth \t team '));
    const ws = await first(db.orm.select().from(db.t.workspaces).where(eq(db.t.workspaces.id, id)));
    expect(ws).toMatchObject({ name: 'Growth team', kind: 'team' });
    expect(await roleOf(db, id, owner.id)).toBe('owner');
    expect(await auditKinds(db, id)).toEqual(['team_created']);
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
    const t = await teamOfThree(db);
    const refused = await renameTeam(db, t.id, t.member.id, 'Hijacked');
    expect(refused).toMatchObject({ ok: false, status: 403 });
    expect(
      (await first(db.orm.select().from(db.t.workspaces).where(eq(db.t.workspaces.id, t.id))))?.name,
    ).toBe('Research Team');
    ok(await renameTeam(db, t.id, t.admin.id, 'Research & Insight'));
    expect(
      (await first(db.orm.select().from(db.t.workspaces).where(eq(db.t.workspaces.id, t.id))))?.name,
    ).toBe('Research & Insight');
    expect(await auditKinds(db, t.id)).toContain('team_renamed');
  });

  it('someone outside the team gets "not found" for every action', async () => {
    const t = await teamOfThree(db);
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
    const t = await teamOfThree(db);
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
    expect(await auditKinds(db, t.id)).toContain('team_deleted');
  });

  it('a personal workspace cannot be deleted, renamed or left as a team', async () => {
    const u = await makeUser(db);
    expect(await deleteTeam(db, u.personalId, u.id, 'Personal')).toMatchObject({ ok: false, status: 400 });
    expect(await renameTeam(db, u.personalId, u.id, 'Mine')).toMatchObject({ ok: false, status: 400 });
    expect(await leaveTeam(db, u.personalId, u.id)).toMatchObject({ ok: false, status: 400 });
    expect(await roleOf(db, u.personalId, u.id)).toBe('owner');
  });
});

describe('roles and the last owner', () => {
  it('admins promote members; changing an admin’s role takes an owner; each change is audited', async () => {
    const t = await teamOfThree(db);
    expect(ok(await changeRole(db, t.id, t.admin.id, t.member.id, 'admin'))).toEqual({
      from: 'member',
      to: 'admin',
    });
    expect(await roleOf(db, t.id, t.member.id)).toBe('admin');
    expect(await changeRole(db, t.id, t.admin.id, t.member.id, 'member')).toMatchObject({
      ok: false,
      status: 403,
    });
    expect(await removeMember(db, t.id, t.admin.id, t.member.id)).toMatchObject({ ok: false, status: 403 });
    expect(await roleOf(db, t.id, t.member.id)).toBe('admin');
    ok(await changeRole(db, t.id, t.owner.id, t.member.id, 'member'));
    expect(await roleOf(db, t.id, t.member.id)).toBe('member');
    expect((await auditKinds(db, t.id)).filter((k) => k === 'member_role_changed')).toHaveLength(2);
  });

  it('a member cannot change roles, not even their own', async () => {
    const t = await teamOfThree(db);
    expect(await changeRole(db, t.id, t.member.id, t.member.id, 'admin')).toMatchObject({
      ok: false,
      status: 403,
    });
    expect(await changeRole(db, t.id, t.member.id, t.admin.id, 'member')).toMatchObject({
      ok: false,
      status: 403,
    });
    expect(await roleOf(db, t.id, t.member.id)).toBe('member');
    expect(await roleOf(db, t.id, t.admin.id)).toBe('admin');
  });

  it('an admin cannot make an owner or touch one', async () => {
    const t = await teamOfThree(db);
    expect(await changeRole(db, t.id, t.admin.id, t.member.id, 'owner')).toMatchObject({
      ok: false,
      status: 403,
    });
    expect(await changeRole(db, t.id, t.admin.id, t.owner.id, 'member')).toMatchObject({
      ok: false,
      status: 403,
    });
    expect(await removeMember(db, t.id, t.admin.id, t.owner.id)).toMatchObject({ ok: false, status: 403 });
    expect(await roleOf(db, t.id, t.owner.id)).toBe('owner');
  });

  it('refuses an unknown role', async () => {
    const t = await teamOfThree(db);
    expect(await changeRole(db, t.id, t.owner.id, t.member.id, 'superuser')).toMatchObject({
      ok: false,
      status: 400,
    });
  });

  it('the last owner cannot be demoted, leave or be removed; with a second owner they can', async () => {
    const t = await teamOfThree(db);
    expect(await changeRole(db, t.id, t.owner.id, t.owner.id, 'admin')).toMatchObject({
      ok: false,
      status: 409,
    });
    expect(await leaveTeam(db, t.id, t.owner.id)).toMatchObject({ ok: false, status: 409 });
    expect(await roleOf(db, t.id, t.owner.id)).toBe('owner');
    ok(await changeRole(db, t.id, t.owner.id, t.admin.id, 'owner'));
    ok(await changeRole(db, t.id, t.owner.id, t.owner.id, 'admin'));
    expect(await roleOf(db, t.id, t.owner.id)).toBe('admin');
    // Now t.admin is the only owner: the former owner, an admin, cannot remove them.
    expect(await removeMember(db, t.id, t.owner.id, t.admin.id)).toMatchObject({ ok: false, status: 403 });
    expect(await leaveTeam(db, t.id, t.admin.id)).toMatchObject({ ok: false, status: 409 });
    ok(await leaveTeam(db, t.id, t.owner.id));
    expect(await roleOf(db, t.id, t.owner.id)).toBeNull();
  });

  it('removing a member revokes their grants in this workspace only and forgets their db.t.consents there', async () => {
    const t = await teamOfThree(db);
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
    expect(await roleOf(db, t.id, t.member.id)).toBeNull();
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
    expect(await auditKinds(db, t.id)).toEqual(expect.arrayContaining(['member_removed', 'grant_revoked']));
    expect(await removeMember(db, t.id, t.admin.id, t.member.id)).toMatchObject({ ok: false, status: 404 });
  });
});
