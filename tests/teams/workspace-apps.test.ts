import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { first, type OpenStore } from '../../src/db/store/index.js';
import {
  listAppsForUser,
  listAppsForWorkspace,
  revokeOwnApp,
  revokeWorkspaceApp,
} from '../../src/teams/apps.js';
import { makeGrant, teamDb } from '../helpers/database.js';
import { teamOfThree } from '../helpers/team-domain.js';
import { ok } from '../helpers/team-fixture.js';

/**
 * Connected apps of a team (src/teams/apps.ts): a user revokes only their own grants; admins see and
 * revoke every grant of their workspace, never another's.
 */
let handle: Awaited<ReturnType<typeof teamDb>>;
let db: OpenStore;

beforeAll(async () => {
  handle = await teamDb();
  db = handle.db;
});
afterAll(() => handle.close());

describe('connected apps', () => {
  it('a user lists and revokes only their own grants', async () => {
    const t = await teamOfThree(db);
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
    const t = await teamOfThree(db);
    const other = await teamOfThree(db);
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
