import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { first, type OpenStore } from '../../src/db/store/index.js';
import { READ_ONLY_SCOPES, setMemberPolicy } from '../../src/teams/member-policy.js';
import { listMembers } from '../../src/teams/members.js';
import { producedRunIds, scheduleOwner, statedOwner } from '../../src/teams/ownership.js';
import { getTeamSettings, setTeamSettings } from '../../src/teams/team-settings.js';
import { createTeam } from '../../src/teams/teams.js';
import { redactWebhookUrl } from '../../src/teams/webhook.js';
import { makeUser, teamDb } from '../helpers/database.js';

/** Who may change whose limits, the member switches and presets, and the ownership rules' pure parts. */
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

const ALL = ['searches:read', 'searches:write', 'agent:read', 'agent:write', 'account:read', 'account:write'];
const open = { upstreamUserId: '', maxScopes: ALL, monthlyWriteCap: '' };

/** A team with an owner, two admins and a member. */
async function team() {
  const owner = await makeUser(db, 'owner');
  const admin = await makeUser(db, 'admin');
  const admin2 = await makeUser(db, 'admin2');
  const member = await makeUser(db, 'member');
  const id = ok(await createTeam(db, owner.id, 'Limits Team'));
  const now = Date.now();
  await db.orm.insert(db.t.workspaceMembers).values([
    { workspaceId: id, userId: admin.id, role: 'admin', createdAt: now },
    { workspaceId: id, userId: admin2.id, role: 'admin', createdAt: now },
    { workspaceId: id, userId: member.id, role: 'member', createdAt: now },
  ]);
  return { id, owner, admin, admin2, member };
}

async function row(workspaceId: string, userId: string) {
  return await first(
    db.orm
      .select()
      .from(db.t.workspaceMembers)
      .where(
        and(eq(db.t.workspaceMembers.workspaceId, workspaceId), eq(db.t.workspaceMembers.userId, userId)),
      ),
  );
}

describe('an admin cannot lift their own limits', () => {
  it('re-ticking the permissions, raising or removing the cap, or switching the webhook back on is refused and audited', async () => {
    const t = await team();
    ok(
      await setMemberPolicy(db, t.id, t.owner.id, t.admin.id, {
        upstreamUserId: '',
        maxScopes: ['searches:read'],
        monthlyWriteCap: '5',
        canChangeWebhook: false,
      }),
    );
    const lifts = [
      { ...open, maxScopes: ALL, monthlyWriteCap: '5', canChangeWebhook: false },
      { ...open, maxScopes: ['searches:read'], monthlyWriteCap: '6', canChangeWebhook: false },
      { ...open, maxScopes: ['searches:read'], monthlyWriteCap: '', canChangeWebhook: false },
      { ...open, maxScopes: ['searches:read'], monthlyWriteCap: '5', canChangeWebhook: true },
    ];
    for (const lift of lifts) {
      const outcome = await setMemberPolicy(db, t.id, t.admin.id, t.admin.id, lift);
      expect(outcome).toMatchObject({ ok: false, status: 403 });
      if (!outcome.ok) expect(outcome.message).toMatch(/^You cannot lift your own limits/);
    }
    expect(await row(t.id, t.admin.id)).toMatchObject({
      maxScopes: 'searches:read',
      monthlyWriteCap: 5,
      canChangeWebhook: false,
    });
    const refusals = await db.orm
      .select()
      .from(db.t.auditEvents)
      .where(and(eq(db.t.auditEvents.workspaceId, t.id), eq(db.t.auditEvents.kind, 'member_policy_refused')));
    expect(refusals).toHaveLength(lifts.length);
    expect(refusals.every((r) => r.userId === t.admin.id && r.status === 'refused')).toBe(true);
  });

  it('an admin may narrow their own limits, and the owner lifts them again', async () => {
    const t = await team();
    ok(
      await setMemberPolicy(db, t.id, t.admin.id, t.admin.id, {
        ...open,
        maxScopes: ['searches:read', 'agent:read'],
        monthlyWriteCap: '3',
      }),
    );
    expect(await row(t.id, t.admin.id)).toMatchObject({
      maxScopes: 'searches:read agent:read',
      monthlyWriteCap: 3,
    });
    ok(await setMemberPolicy(db, t.id, t.owner.id, t.admin.id, open));
    expect(await row(t.id, t.admin.id)).toMatchObject({ maxScopes: null, monthlyWriteCap: null });
  });
});

describe('only owners change another admin’s limits', () => {
  it('an admin changing another admin’s settings is refused; an owner may; admins still manage members', async () => {
    const t = await team();
    const cut = { ...open, maxScopes: ['searches:read'] };
    expect(await setMemberPolicy(db, t.id, t.admin.id, t.admin2.id, cut)).toMatchObject({
      ok: false,
      status: 403,
    });
    expect((await row(t.id, t.admin2.id))?.maxScopes).toBeNull();
    ok(await setMemberPolicy(db, t.id, t.owner.id, t.admin2.id, cut));
    expect((await row(t.id, t.admin2.id))?.maxScopes).toBe('searches:read');
    ok(await setMemberPolicy(db, t.id, t.admin.id, t.member.id, cut));
    expect((await row(t.id, t.member.id))?.maxScopes).toBe('searches:read');
  });
});

describe('member switches and presets', () => {
  it('"Can change team webhook" defaults to the role, is stored only when it differs, and follows a role change', async () => {
    const t = await team();
    const view = async (userId: string) => (await listMembers(db, t.id)).find((m) => m.userId === userId);
    expect(await view(t.owner.id)).toMatchObject({ canChangeWebhook: true, canChangeWebhookSet: false });
    expect(await view(t.admin.id)).toMatchObject({ canChangeWebhook: true, canChangeWebhookSet: false });
    expect(await view(t.member.id)).toMatchObject({ canChangeWebhook: false, canChangeWebhookSet: false });
    ok(await setMemberPolicy(db, t.id, t.admin.id, t.member.id, { ...open, canChangeWebhook: true }));
    expect(await view(t.member.id)).toMatchObject({ canChangeWebhook: true, canChangeWebhookSet: true });
    ok(await setMemberPolicy(db, t.id, t.admin.id, t.member.id, { ...open, canChangeWebhook: false }));
    expect((await row(t.id, t.member.id))?.canChangeWebhook).toBeNull();
    // Left out: unchanged.
    ok(await setMemberPolicy(db, t.id, t.owner.id, t.admin.id, { ...open, canChangeWebhook: false }));
    ok(await setMemberPolicy(db, t.id, t.owner.id, t.admin.id, open));
    expect(await view(t.admin.id)).toMatchObject({ canChangeWebhook: false, canChangeWebhookSet: true });
  });

  it('the Read-only preset saves the read permissions and no webhook, whatever was ticked', async () => {
    const t = await team();
    ok(
      await setMemberPolicy(db, t.id, t.admin.id, t.member.id, {
        ...open,
        canChangeWebhook: true,
        preset: 'read-only',
      }),
    );
    expect(await row(t.id, t.member.id)).toMatchObject({
      maxScopes: READ_ONLY_SCOPES.join(' '),
      canChangeWebhook: null,
    });
    expect(READ_ONLY_SCOPES).toEqual(['searches:read', 'agent:read', 'account:read']);
    const event = (
      await db.orm
        .select()
        .from(db.t.auditEvents)
        .where(
          and(eq(db.t.auditEvents.workspaceId, t.id), eq(db.t.auditEvents.kind, 'member_policy_changed')),
        )
    ).at(-1);
    expect(JSON.parse(event?.detail ?? '{}')).toMatchObject({ preset: 'read-only', canChangeWebhook: false });
  });
});

describe('the team setting on reading teammates’ work', () => {
  it('defaults to yes; owners and admins change it (audited), members cannot, a personal workspace has none', async () => {
    const t = await team();
    expect(await getTeamSettings(db, t.id)).toEqual({
      membersReadTeamWork: true,
      accessTokensAllowed: true,
      accessTokenMaxDays: 90,
    });
    expect(await setTeamSettings(db, t.id, t.member.id, { membersReadTeamWork: false })).toMatchObject({
      ok: false,
      status: 403,
    });
    expect(ok(await setTeamSettings(db, t.id, t.admin.id, { membersReadTeamWork: false }))).toEqual({
      changed: true,
    });
    expect(await getTeamSettings(db, t.id)).toMatchObject({ membersReadTeamWork: false });
    expect(ok(await setTeamSettings(db, t.id, t.owner.id, { membersReadTeamWork: false }))).toEqual({
      changed: false,
    });
    const events = await db.orm
      .select()
      .from(db.t.auditEvents)
      .where(and(eq(db.t.auditEvents.workspaceId, t.id), eq(db.t.auditEvents.kind, 'team_settings_changed')));
    expect(events.map((e) => JSON.parse(e.detail ?? '{}'))).toEqual([{ membersReadTeamWork: false }]);
    expect(
      await setTeamSettings(db, t.owner.personalId, t.owner.id, { membersReadTeamWork: false }),
    ).toMatchObject({
      ok: false,
      status: 400,
    });
  });
});

describe('whose is an item', () => {
  it('a run is its service_user_id’s; a record without one is nobody’s', async () => {
    expect(statedOwner({ id: 'r', service_user_id: 'u_1' })).toBe('u_1');
    expect(statedOwner({ id: 'r' })).toBeNull();
    expect(statedOwner({ id: 'r', service_user_id: '' })).toBeNull();
  });

  it('a schedule without an owner upstream falls back to our record, then to a run it produced, else nobody', async () => {
    expect(scheduleOwner({ id: 's', service_user_id: 'u_up' }, 'u_ours')).toBe('u_up');
    expect(scheduleOwner({ id: 's' }, 'u_ours')).toBe('u_ours');
    const produced = { id: 's', recent_runs: [{ agent_run_id: 'run-2' }, { agent_run_id: 'run-1' }] };
    expect(scheduleOwner(produced, undefined)).toBeUndefined();
    expect(producedRunIds(produced)).toEqual(['run-2', 'run-1']);
    expect(scheduleOwner({ id: 's', recent_runs: [] }, undefined)).toBeNull();
  });
});

describe('webhook URLs in the audit trail', () => {
  it('keep scheme, host and path; drop user info, fragment and the query string', async () => {
    expect(redactWebhookUrl('https://hooks.example.com/in')).toBe('https://hooks.example.com/in');
    expect(redactWebhookUrl('https://bob:pw@hooks.example.com:8443/in?token=s3cret#frag')).toBe(
      'https://hooks.example.com:8443/in?(redacted)',
    );
    expect(redactWebhookUrl(null)).toBeNull();
    expect(redactWebhookUrl('not a url')).toBe('(not a URL)');
  });
});
