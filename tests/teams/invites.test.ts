import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { first, type OpenStore } from '../../src/db/store/index.js';
import { hashToken, newToken } from '../../src/security/tokens.js';
import {
  acceptInvite,
  createInvite,
  listInvites,
  lookupInvite,
  revokeInvite,
} from '../../src/teams/invites.js';
import { makeUser, teamDb } from '../helpers/database.js';
import { auditKinds, roleOf, teamOfThree } from '../helpers/team-domain.js';
import { ok } from '../helpers/team-fixture.js';

/**
 * Invite links in the domain functions (src/teams/invites.ts): creating them (only the hash stored),
 * accepting, spending uses, expiry, revocation and forged or misdirected tokens.
 */
let handle: Awaited<ReturnType<typeof teamDb>>;
let db: OpenStore;

beforeAll(async () => {
  handle = await teamDb();
  db = handle.db;
});
afterAll(() => handle.close());

describe('invites', () => {
  const input = { role: 'member', maxUses: '1', expiresInDays: '7' };

  it('an admin creates a link; only its hash is stored; a member cannot create one', async () => {
    const t = await teamOfThree(db);
    const created = ok(await createInvite(db, t.id, t.admin.id, input));
    expect(created.token).toMatch(/^sim_iv_[A-Za-z0-9_-]{43}$/);
    const row = await first(db.orm.select().from(db.t.invites).where(eq(db.t.invites.id, created.id)));
    expect(row?.tokenHash).toBe(hashToken(created.token));
    expect(JSON.stringify(row)).not.toContain(created.token);
    expect(JSON.stringify(await db.orm.select().from(db.t.auditEvents))).not.toContain(created.token);
    expect(await createInvite(db, t.id, t.member.id, input)).toMatchObject({ ok: false, status: 403 });
  });

  it('refuses bad fields, each with its own message', async () => {
    const t = await teamOfThree(db);
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
    const t = await teamOfThree(db);
    const created = ok(await createInvite(db, t.id, t.admin.id, { ...input, role: 'admin' }));
    const joiner = await makeUser(db, 'joiner');
    expect(ok(await acceptInvite(db, created.token, t.id, joiner.id))).toMatchObject({
      alreadyMember: false,
    });
    expect(await roleOf(db, t.id, joiner.id)).toBe('admin');
    expect(await auditKinds(db, t.id)).toContain('invite_accepted');
    const late = await makeUser(db, 'late');
    const refused = await acceptInvite(db, created.token, t.id, late.id);
    expect(refused).toMatchObject({ ok: false, status: 410 });
    if (!refused.ok) expect(refused.message).toMatch(/already been used/);
    expect(await roleOf(db, t.id, late.id)).toBeNull();
    expect((await lookupInvite(db, created.token))?.state).toBe('used_up');
  });

  it('a member accepting again spends nothing', async () => {
    const t = await teamOfThree(db);
    const created = ok(await createInvite(db, t.id, t.admin.id, input));
    expect(ok(await acceptInvite(db, created.token, t.id, t.member.id))).toMatchObject({
      alreadyMember: true,
    });
    expect(
      (await first(db.orm.select().from(db.t.invites).where(eq(db.t.invites.id, created.id))))?.uses,
    ).toBe(0);
  });

  it('a forged token names nothing and joins no one', async () => {
    const t = await teamOfThree(db);
    const forged = newToken('invite');
    const u = await makeUser(db);
    expect(await lookupInvite(db, forged)).toBeNull();
    const refused = await acceptInvite(db, forged, t.id, u.id);
    expect(refused).toMatchObject({ ok: false, status: 404 });
    if (!refused.ok) expect(refused.message).toMatch(/not valid/);
    expect(await acceptInvite(db, 'x'.repeat(500), t.id, u.id)).toMatchObject({ ok: false, status: 404 });
    expect(await roleOf(db, t.id, u.id)).toBeNull();
  });

  it('an expired invite is refused', async () => {
    const t = await teamOfThree(db);
    const created = ok(await createInvite(db, t.id, t.admin.id, input, Date.now() - 8 * 24 * 3600 * 1000));
    const u = await makeUser(db);
    const refused = await acceptInvite(db, created.token, t.id, u.id);
    expect(refused).toMatchObject({ ok: false, status: 410 });
    if (!refused.ok) expect(refused.message).toMatch(/expired/);
    expect(await roleOf(db, t.id, u.id)).toBeNull();
  });

  it('a revoked invite is refused; revoking needs an admin and an invite of this workspace', async () => {
    const t = await teamOfThree(db);
    const other = await teamOfThree(db);
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
    const t = await teamOfThree(db);
    const other = await teamOfThree(db);
    const created = ok(await createInvite(db, t.id, t.admin.id, input));
    const u = await makeUser(db);
    expect(await acceptInvite(db, created.token, other.id, u.id)).toMatchObject({ ok: false, status: 400 });
    expect(await roleOf(db, other.id, u.id)).toBeNull();
    expect(await roleOf(db, t.id, u.id)).toBeNull();
    expect((await lookupInvite(db, created.token))?.state).toBe('usable');
  });

  it('a multi-use invite admits that many people; an unlimited one admits all until expiry', async () => {
    const t = await teamOfThree(db);
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
