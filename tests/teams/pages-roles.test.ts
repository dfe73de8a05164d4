import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getMembership } from '../../src/accounts/workspaces.js';
import { first } from '../../src/db/store/index.js';
import { makeGrant } from '../helpers/database.js';
import { teamPageSteps } from '../helpers/team-pages.js';
import { startTeamServer, type TeamServer } from '../helpers/team-server.js';

/**
 * The team pages over HTTP, as a browser sends forms: roles, removal and the last owner, members
 * calling admin actions, leaving and deleting, and a member's settings page.
 */
let ts: TeamServer;
const { team } = teamPageSteps(() => ts);

beforeAll(async () => {
  ts = await startTeamServer();
});
afterAll(async () => {
  await ts?.close();
});

describe('roles, removal and the last owner over HTTP', () => {
  it('a member gets 403 for every admin action and admin page, and nothing changes', async () => {
    const { id, owner, member } = await team();
    await member.browser.get(`/workspaces/${id}`);
    expect(member.browser.lastHtml).not.toContain('Create invite link');
    const posts: Array<[string, Record<string, string>]> = [
      [`/workspaces/${id}/invites`, { role: 'member', max_uses: '1', expires_in_days: '7' }],
      [`/workspaces/${id}/members/${owner.id}/role`, { role: 'member' }],
      [`/workspaces/${id}/members/${member.id}/role`, { role: 'owner' }],
      [`/workspaces/${id}/members/${owner.id}/remove`, {}],
      [`/workspaces/${id}/members/${member.id}`, { upstream_user_id: '', monthly_write_cap: '' }],
      [`/workspaces/${id}/rename`, { name: 'Taken over' }],
      [`/workspaces/${id}/delete`, { confirm: 'Insight Team' }],
    ];
    for (const [path, fields] of posts) {
      const res = await member.browser.post(path, fields);
      expect(res.status, path).toBe(403);
    }
    for (const path of ['audit', 'apps', 'usage', `members/${owner.id}`]) {
      const res = await member.browser.get(`/workspaces/${id}/${path}`);
      expect(res.status, path).toBe(403);
      expect(res.headers.get('cache-control')).toBe('no-store');
    }
    expect((await getMembership(ts.server.db, id, owner.id))?.role).toBe('owner');
    expect((await getMembership(ts.server.db, id, member.id))?.role).toBe('member');
    expect(
      (
        await first(
          ts.server.db.orm
            .select()
            .from(ts.server.db.t.workspaces)
            .where(eq(ts.server.db.t.workspaces.id, id)),
        )
      )?.name,
    ).toBe('Insight Team');
    expect(
      await ts.server.db.orm
        .select()
        .from(ts.server.db.t.invites)
        .where(eq(ts.server.db.t.invites.workspaceId, id)),
    ).toHaveLength(1);
  });

  it('the owner promotes, demotes and removes; removal revokes the member’s grants there', async () => {
    const { id, owner, member } = await team();
    const g = await makeGrant(ts.server.db, member.id, id);
    await owner.browser.get(`/workspaces/${id}`);
    expect(
      (await owner.browser.post(`/workspaces/${id}/members/${member.id}/role`, { role: 'admin' })).status,
    ).toBe(303);
    expect((await getMembership(ts.server.db, id, member.id))?.role).toBe('admin');
    await owner.browser.get(`/workspaces/${id}`);
    expect(
      (await owner.browser.post(`/workspaces/${id}/members/${member.id}/role`, { role: 'member' })).status,
    ).toBe(303);
    expect((await getMembership(ts.server.db, id, member.id))?.role).toBe('member');
    await owner.browser.get(`/workspaces/${id}`);
    expect((await owner.browser.post(`/workspaces/${id}/members/${member.id}/remove`, {})).status).toBe(303);
    expect(await getMembership(ts.server.db, id, member.id)).toBeNull();
    expect(
      (
        await first(
          ts.server.db.orm
            .select()
            .from(ts.server.db.t.oauthGrants)
            .where(eq(ts.server.db.t.oauthGrants.id, g)),
        )
      )?.revokedReason,
    ).toBe('member_removed');
    // The removed member now gets "not found".
    expect((await member.browser.get(`/workspaces/${id}`)).status).toBe(404);
  });

  it('the last owner can neither leave nor demote themselves; the page says why', async () => {
    const { id, owner } = await team();
    await owner.browser.get(`/workspaces/${id}`);
    const leave = await owner.browser.post(`/workspaces/${id}/leave`, {});
    expect(leave.status).toBe(409);
    expect(await leave.text()).toContain('You are the last owner of this team');
    const demote = await owner.browser.post(`/workspaces/${id}/members/${owner.id}/role`, { role: 'admin' });
    expect(demote.status).toBe(409);
    expect(await demote.text()).toContain('at least one owner');
    expect((await getMembership(ts.server.db, id, owner.id))?.role).toBe('owner');
  });

  it('a member leaves; deleting needs the exact name typed', async () => {
    const { id, owner, member } = await team('Delete Me');
    await member.browser.get(`/workspaces/${id}`);
    expect((await member.browser.post(`/workspaces/${id}/leave`, {})).status).toBe(303);
    expect(await getMembership(ts.server.db, id, member.id)).toBeNull();
    await owner.browser.get(`/workspaces/${id}`);
    const wrong = await owner.browser.post(`/workspaces/${id}/delete`, { confirm: 'delete me' });
    expect(wrong.status).toBe(400);
    expect(await wrong.text()).toMatch(
      /id="confirm-error"[^>]*>Type the team&#39;s name, Delete Me, exactly to confirm./,
    );
    const right = await owner.browser.post(`/workspaces/${id}/delete`, { confirm: 'Delete Me' });
    expect(right.status).toBe(303);
    expect(
      await first(
        ts.server.db.orm.select().from(ts.server.db.t.workspaces).where(eq(ts.server.db.t.workspaces.id, id)),
      ),
    ).toBeUndefined();
  });

  it('an admin sets a member’s user id, read-only ceiling and cap on the settings page', async () => {
    const { id, owner, member } = await team();
    await owner.browser.get(`/workspaces/${id}/members/${member.id}`);
    expect(owner.browser.lastHtml).toContain('Permissions this member may grant');
    const body = new URLSearchParams({
      upstream_user_id: 'analyst-9',
      monthly_write_cap: '5',
      csrf: owner.browser.csrf(),
    });
    for (const s of ['searches:read', 'agent:read', 'account:read']) body.append('max_scopes', s);
    const res = await fetch(`${ts.url}/workspaces/${id}/members/${member.id}`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        cookie: owner.browser.cookieHeader(),
        origin: ts.url,
      },
      body,
    });
    expect(res.status).toBe(303);
    const { workspaceMembers: wm } = ts.server.db.t;
    const m = await first(
      ts.server.db.orm
        .select({
          upstream_user_id: wm.upstreamUserId,
          max_scopes: wm.maxScopes,
          monthly_write_cap: wm.monthlyWriteCap,
        })
        .from(wm)
        .where(and(eq(wm.workspaceId, id), eq(wm.userId, member.id))),
    );
    expect(m).toEqual({
      upstream_user_id: 'analyst-9',
      max_scopes: 'searches:read agent:read account:read',
      monthly_write_cap: 5,
    });
    const bad = await owner.browser.post(`/workspaces/${id}/members/${member.id}`, {
      upstream_user_id: 'x',
      monthly_write_cap: 'lots',
      csrf: 'auto',
    });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toMatch(/id="monthly_write_cap-error"/);
  });
});
