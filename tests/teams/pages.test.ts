import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { saveUpstreamCredential } from '../../src/accounts/credentials.js';
import { createSession } from '../../src/accounts/sessions.js';
import { createUser } from '../../src/accounts/users.js';
import { getMembership } from '../../src/accounts/workspaces.js';
import { first } from '../../src/db/store/index.js';
import { hashToken } from '../../src/security/tokens.js';
import { cookiePolicy } from '../../src/web/cookies.js';
import { makeGrant } from '../helpers/database.js';
import { FormClient } from '../helpers/forms.js';
import { startTeamServer, type TeamServer } from '../helpers/team-server.js';

/**
 * The team pages over HTTP, as a browser sends forms: creating a team, ts.server.db.t.invites, roles, the last owner,
 * members calling admin actions, strangers naming other workspaces' ids, connected apps, audit and
 * usage pages, CSRF and escaping.
 */
let ts: TeamServer;
const PASSWORD = 'correct horse battery staple';
let counter = 0;

interface Person {
  id: string;
  email: string;
  personalId: string;
  browser: FormClient;
}

async function person(label: string): Promise<Person> {
  counter += 1;
  const email = `${label}-${counter}-${process.pid}@example.com`;
  const created = await createUser(ts.server.db, { email, password: PASSWORD });
  if (!created.ok) throw new Error(created.reason);
  const browser = new FormClient(ts.url);
  browser.cookies.set(
    cookiePolicy(ts.server.config).sessionName,
    await createSession(ts.server.db, created.user.id, 'test'),
  );
  return { id: created.user.id, email, personalId: created.personalWorkspaceId, browser };
}

/** Creates a team through the pages; returns its id (the connect page it leads to names it). */
async function createTeamVia(p: Person, name: string): Promise<string> {
  await p.browser.get('/workspaces/new');
  const res = await p.browser.post('/workspaces', { name });
  expect(res.status).toBe(303);
  const match = /^\/connect\?workspace=([^&]+)&done=team_created$/.exec(res.headers.get('location') ?? '');
  if (!match?.[1]) throw new Error(`unexpected redirect ${res.headers.get('location')}`);
  return decodeURIComponent(match[1]);
}

/** Creates an invite link on the team page; returns the link. */
async function inviteVia(p: Person, teamId: string, fields: Record<string, string> = {}): Promise<string> {
  await p.browser.get(`/workspaces/${teamId}`);
  const res = await p.browser.post(`/workspaces/${teamId}/invites`, {
    role: 'member',
    max_uses: '1',
    expires_in_days: '7',
    ...fields,
  });
  expect(res.status).toBe(201);
  const html = await res.text();
  const link = /id="invite-link" type="text" readonly="" value="([^"]+)"/.exec(html)?.[1];
  if (!link) throw new Error('no invite link on the page');
  return link.replace(/&amp;/g, '&');
}

async function join(p: Person, link: string): Promise<Response> {
  const url = new URL(link);
  await p.browser.get(`${url.pathname}${url.search}`);
  return p.browser.post('/invite', {
    token: url.searchParams.get('token') ?? '',
    workspace: /name="workspace" value="([^"]+)"/.exec(p.browser.lastHtml)?.[1] ?? '',
  });
}

/** Team with an owner (creator), and a member who joined by invite. */
async function team(name = 'Insight Team') {
  const owner = await person('owner');
  const member = await person('member');
  const id = await createTeamVia(owner, name);
  const res = await join(member, await inviteVia(owner, id));
  expect(res.status).toBe(303);
  return { id, owner, member };
}

beforeAll(async () => {
  ts = await startTeamServer();
});
afterAll(async () => {
  await ts?.close();
});

describe('creating a team and inviting', () => {
  it('creates a team, shows an invite link once, and the invitee joins with the invite role', async () => {
    const owner = await person('owner');
    const id = await createTeamVia(owner, 'Growth');
    // Creating a team leads to the connect page, which starts with the new team's next steps.
    const page = await owner.browser.get(`/connect?workspace=${id}&done=team_created`);
    expect(page.status).toBe(200);
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(owner.browser.lastHtml).toContain('Team “Growth” created.');
    expect(owner.browser.lastHtml).toContain(`href="/account/credentials?workspace=${id}"`);
    expect(owner.browser.lastHtml).toContain(`href="/workspaces/${id}#invite-heading"`);
    await owner.browser.get(`/workspaces/${id}`);
    expect(owner.browser.lastHtml).toContain('No API credentials are linked yet');
    const link = await inviteVia(owner, id, { role: 'admin' });
    expect(link).toMatch(new RegExp(`^${ts.url}/invite\\?token=sim_iv_`));
    // Shown once: the team page afterwards does not carry it.
    await owner.browser.get(`/workspaces/${id}`);
    expect(owner.browser.lastHtml).not.toContain(new URL(link).searchParams.get('token') as string);

    const joiner = await person('joiner');
    const res = await join(joiner, link);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`/workspaces/${id}?done=joined`);
    expect((await getMembership(ts.server.db, id, joiner.id))?.role).toBe('admin');
    const kinds = (
      await ts.server.db.orm
        .select()
        .from(ts.server.db.t.auditEvents)
        .where(eq(ts.server.db.t.auditEvents.workspaceId, id))
    ).map((r) => r.kind);
    expect(kinds).toEqual(expect.arrayContaining(['team_created', 'invite_created', 'invite_accepted']));
  });

  it('the account page links teams, team creation and connected apps', async () => {
    const { owner, id } = await team();
    await owner.browser.get('/account');
    expect(owner.browser.lastHtml).toContain('href="/workspaces/new"');
    expect(owner.browser.lastHtml).toContain('href="/account/apps"');
    expect(owner.browser.lastHtml).toContain(`href="/workspaces/${id}"`);
  });

  it('escapes a team name that looks like markup', async () => {
    const owner = await person('owner');
    const id = await createTeamVia(owner, '<script>alert(1)</script>');
    await owner.browser.get(`/workspaces/${id}`);
    expect(owner.browser.lastHtml).not.toContain('<script>alert(1)</script>');
    expect(owner.browser.lastHtml).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });

  it('refuses a form without the CSRF token or from another origin, changing nothing', async () => {
    const owner = await person('owner');
    await owner.browser.get('/workspaces/new');
    const noToken = await owner.browser.post('/workspaces', { name: 'No token' }, { csrf: null });
    expect(noToken.status).toBe(403);
    const crossSite = await owner.browser.post(
      '/workspaces',
      { name: 'Cross site' },
      { origin: 'https://evil.example' },
    );
    expect(crossSite.status).toBe(403);
    const names = (
      await ts.server.db.orm.select({ name: ts.server.db.t.workspaces.name }).from(ts.server.db.t.workspaces)
    ).map((w) => w.name);
    expect(names).not.toContain('No token');
    expect(names).not.toContain('Cross site');
  });

  it('an empty team name is refused with an error tied to the field', async () => {
    const owner = await person('owner');
    await owner.browser.get('/workspaces/new');
    const res = await owner.browser.post('/workspaces', { name: '   ' });
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(html).toMatch(/<p id="name-error" class="error field-error">Enter a name for the team.<\/p>/);
    expect(html).toMatch(/aria-invalid="true" aria-describedby="name-error"/);
  });
});

describe('invite links that do not work', () => {
  it('a forged token: 404 with a clear message, nobody joins', async () => {
    const p = await person('visitor');
    const res = await p.browser.get('/invite?token=sim_iv_forgedforgedforgedforgedforgedforgedforg');
    expect(res.status).toBe(404);
    expect(p.browser.lastHtml).toContain('This invitation link is not valid');
    expect(p.browser.lastHtml).not.toContain('Accept invitation');
  });

  it('an expired, a used-up and a withdrawn link: 410 each, and accepting anyway is refused', async () => {
    const { owner, id } = await team();
    const expiredLink = await inviteVia(owner, id);
    const usedLink = await inviteVia(owner, id);
    const withdrawnLink = await inviteVia(owner, id);
    const rowOf = (link: string) =>
      eq(ts.server.db.t.invites.tokenHash, hashToken(new URL(link).searchParams.get('token') as string));
    await ts.server.db.orm
      .update(ts.server.db.t.invites)
      .set({ expiresAt: Date.now() - 1 })
      .where(rowOf(expiredLink));
    const withdrawnId = (
      await first(ts.server.db.orm.select().from(ts.server.db.t.invites).where(rowOf(withdrawnLink)))
    )?.id as string;
    await join(await person('first'), usedLink);
    await owner.browser.get(`/workspaces/${id}`);
    expect((await owner.browser.post(`/workspaces/${id}/invites/${withdrawnId}/revoke`, {})).status).toBe(
      303,
    );

    for (const [link, text] of [
      [expiredLink, 'expired'],
      [usedLink, 'already been used'],
      [withdrawnLink, 'withdrawn'],
    ] as const) {
      const p = await person('late');
      const url = new URL(link);
      const res = await p.browser.get(`${url.pathname}${url.search}`);
      expect(res.status, text).toBe(410);
      expect(p.browser.lastHtml).toContain(text);
      const forced = await p.browser.post('/invite', {
        token: url.searchParams.get('token') ?? '',
        workspace: id,
      });
      expect(forced.status).toBe(410);
      expect(await getMembership(ts.server.db, id, p.id)).toBeNull();
    }
  });

  it('a link posted with another workspace id is refused and spends nothing', async () => {
    const { owner, id } = await team();
    const other = await team('Other Team');
    const link = await inviteVia(owner, id);
    const p = await person('wrong');
    await p.browser.get('/account');
    const res = await p.browser.post('/invite', {
      token: new URL(link).searchParams.get('token') ?? '',
      workspace: other.id,
    });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('another workspace');
    expect(await getMembership(ts.server.db, other.id, p.id)).toBeNull();
    expect(await getMembership(ts.server.db, id, p.id)).toBeNull();
    expect((await join(p, link)).status).toBe(303);
  });

  it('signed out: the page offers sign-in and sign-up, and signing up with the link joins the team', async () => {
    const { owner, id } = await team();
    const link = await inviteVia(owner, id);
    const visitor = new FormClient(ts.url);
    const url = new URL(link);
    await visitor.get(`${url.pathname}${url.search}`);
    expect(visitor.lastHtml).toContain('Sign in to accept');
    const signUpHref = /href="(\/sign-up\?[^"]+)"/
      .exec(visitor.lastHtml)?.[1]
      ?.replace(/&amp;/g, '&') as string;
    expect(signUpHref).toContain('invite=sim_iv_');
    await visitor.get(signUpHref);
    const email = `invited-${Date.now()}@example.com`;
    const hidden = (name: string) =>
      (new RegExp(`name="${name}" value="([^"]+)"`).exec(visitor.lastHtml)?.[1] ?? '').replace(/&amp;/g, '&');
    const res = await visitor.post('/sign-up', {
      email,
      password: PASSWORD,
      next: hidden('next'),
      invite: hidden('invite'),
    });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`${url.pathname}${url.search}`);
    await visitor.get(res.headers.get('location') as string);
    expect(visitor.lastHtml).toContain('You are a member of');
  });
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

describe('what other users can see', () => {
  it('a stranger gets 404 for another workspace’s pages, audit, apps and usage', async () => {
    const { id } = await team();
    const stranger = await person('stranger');
    for (const path of ['', '/audit', '/audit?format=csv', '/apps', '/usage', '/members/x']) {
      const res = await stranger.browser.get(`/workspaces/${id}${path}`);
      expect(res.status, path).toBe(404);
      expect(stranger.browser.lastHtml).not.toContain('Insight Team');
    }
  });

  it('connected apps: each user sees and revokes only their own; a foreign grant id changes nothing', async () => {
    const { id, owner, member } = await team();
    const mine = await makeGrant(ts.server.db, member.id, id);
    const theirs = await makeGrant(ts.server.db, owner.id, id);
    await member.browser.get('/account/apps');
    expect(member.browser.lastHtml).toContain(mine);
    expect(member.browser.lastHtml).not.toContain(theirs);
    const foreign = await member.browser.post('/account/apps/revoke', { grant: theirs });
    expect(foreign.status).toBe(404);
    // Through the admin route of a workspace where they are only a member: refused too.
    expect((await member.browser.post(`/workspaces/${id}/apps/revoke`, { grant: theirs })).status).toBe(403);
    expect(
      (
        await first(
          ts.server.db.orm
            .select()
            .from(ts.server.db.t.oauthGrants)
            .where(eq(ts.server.db.t.oauthGrants.id, theirs)),
        )
      )?.revokedAt,
    ).toBeNull();
    await member.browser.get('/account/apps');
    expect((await member.browser.post('/account/apps/revoke', { grant: mine })).status).toBe(303);
    expect(
      (
        await first(
          ts.server.db.orm
            .select()
            .from(ts.server.db.t.oauthGrants)
            .where(eq(ts.server.db.t.oauthGrants.id, mine)),
        )
      )?.revokedReason,
    ).toBe('revoked_by_user');

    // The admin view lists every grant of the workspace and revokes; a grant of another workspace is 404.
    const again = await makeGrant(ts.server.db, member.id, id);
    const elsewhere = await makeGrant(ts.server.db, member.id, member.personalId);
    await owner.browser.get(`/workspaces/${id}/apps`);
    expect(owner.browser.lastHtml).toContain(again);
    expect(owner.browser.lastHtml).toContain(theirs);
    expect(owner.browser.lastHtml).toContain(member.email);
    expect((await owner.browser.post(`/workspaces/${id}/apps/revoke`, { grant: elsewhere })).status).toBe(
      404,
    );
    expect((await owner.browser.post(`/workspaces/${id}/apps/revoke`, { grant: again })).status).toBe(303);
    expect(
      (
        await first(
          ts.server.db.orm
            .select()
            .from(ts.server.db.t.oauthGrants)
            .where(eq(ts.server.db.t.oauthGrants.id, elsewhere)),
        )
      )?.revokedAt,
    ).toBeNull();
  });
});

describe('audit and usage pages', () => {
  it('filters, paginates and exports the trail as CSV and JSON', async () => {
    const { id, owner, member } = await team();
    const base = Date.UTC(2026, 9, 1);
    await ts.server.db.orm.insert(ts.server.db.t.auditEvents).values(
      Array.from({ length: 60 }, (_, i) => ({
        at: base + i * 60_000,
        kind: 'tool_call',
        workspaceId: id,
        userId: i % 2 ? member.id : owner.id,
        tool: i % 3 ? 'get_keyword_search' : 'submit_keyword_search',
        status: 'ok',
      })),
    );
    const q = '?kind=tool_call&from=2026-10-01&to=2026-10-01';
    const first = await owner.browser.get(`/workspaces/${id}/audit${q}`);
    expect(first.status).toBe(200);
    expect(first.headers.get('cache-control')).toBe('no-store');
    expect((owner.browser.lastHtml.match(/<tr>/g) ?? []).length - 1).toBe(50);
    expect(owner.browser.lastHtml).toContain('Older events');
    await owner.browser.get(`/workspaces/${id}/audit${q}&page=2`);
    expect((owner.browser.lastHtml.match(/<tr>/g) ?? []).length - 1).toBe(10);
    expect(owner.browser.lastHtml).not.toContain('Older events');

    await owner.browser.get(`/workspaces/${id}/audit${q}&member=${member.id}&tool=submit_keyword_search`);
    expect((owner.browser.lastHtml.match(/<tr>/g) ?? []).length - 1).toBe(10);

    const csv = await owner.browser.get(`/workspaces/${id}/audit${q}&format=csv`);
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(csv.headers.get('cache-control')).toBe('no-store');
    expect(csv.headers.get('content-disposition')).toMatch(/attachment; filename="audit-.*\.csv"/);
    expect(owner.browser.lastHtml.trimEnd().split('\r\n')).toHaveLength(61);
    const json = await owner.browser.get(`/workspaces/${id}/audit${q}&member=${member.id}&format=json`);
    const body = (await json.json()) as { events: Array<{ userId: string; kind: string; time: string }> };
    expect(body.events).toHaveLength(30);
    expect(body.events.every((e) => e.userId === member.id && e.kind === 'tool_call')).toBe(true);

    const bad = await owner.browser.get(`/workspaces/${id}/audit?from=yesterday`);
    expect(bad.status).toBe(400);
    expect(owner.browser.lastHtml).toMatch(/id="from-error"[^>]*>Enter a date as YYYY-MM-DD./);
  });

  it('usage: calls per member and tool, the upstream figures, and an error line without credentials', async () => {
    const { id, owner, member } = await team();
    await ts.server.db.orm.insert(ts.server.db.t.auditEvents).values([
      {
        at: Date.now() - 1000,
        kind: 'tool_call',
        workspaceId: id,
        userId: member.id,
        tool: 'submit_user_search',
        status: 'ok',
      },
      {
        at: Date.now() - 2000,
        kind: 'tool_call',
        workspaceId: id,
        userId: member.id,
        tool: 'submit_user_search',
        status: '402',
      },
    ]);
    const noCredential = await owner.browser.get(`/workspaces/${id}/usage`);
    expect(noCredential.status).toBe(200);
    expect(owner.browser.lastHtml).toContain('No API credentials are linked to this workspace');
    // One row: the member, the tool, 2 calls, 1 not ok (cells hold their value in a div.cell).
    const cell = '(?:</div></td><td[^>]*><div class="cell">)';
    expect(owner.browser.lastHtml).toMatch(
      new RegExp(`${member.email}${cell}submit_user_search${cell}2${cell}1</div></td>`),
    );

    const token = (await ts.control('POST', '/credentials', {})).token as string;
    await saveUpstreamCredential(ts.server.db, ts.server.secrets, {
      workspaceId: id,
      linkedBy: owner.id,
      token,
      upstreamUserId: 'owner-upstream',
      verifiedAt: Date.now(),
    });
    await owner.browser.get(`/workspaces/${id}/usage?days=7`);
    expect(owner.browser.lastHtml).toContain('<dt>Searches</dt>');
    const usage = (await ts.requests(token)).at(-1);
    expect(usage?.path).toBe('/api/usage');
    expect(usage?.user_id).toBeNull();

    // An upstream that fails: one error line, the page still renders.
    await ts.control('PUT', '/faults', { token, error_rate: 1, path_prefix: '/api/usage' });
    const failing = await owner.browser.get(`/workspaces/${id}/usage`);
    expect(failing.status).toBe(200);
    expect(owner.browser.lastHtml).toContain('could not be fetched just now');
  });
});

describe('SIGNUP=invite', () => {
  let closed: TeamServer;
  beforeAll(async () => {
    closed = await startTeamServer({ SIGNUP: 'invite' });
  });
  afterAll(async () => {
    await closed?.close();
  });

  it('a team invite link lets a new person sign up and join; without one, or with a forged one, sign-up is refused', async () => {
    const created = await createUser(closed.server.db, {
      email: `owner-invite-mode-${Date.now()}@example.com`,
      password: PASSWORD,
    });
    if (!created.ok) throw new Error(created.reason);
    const owner = new FormClient(closed.url);
    owner.cookies.set(
      cookiePolicy(closed.server.config).sessionName,
      await createSession(closed.server.db, created.user.id, 'test'),
    );
    await owner.get('/workspaces/new');
    const made = await owner.post('/workspaces', { name: 'Invite Only' });
    const teamId =
      new URL(made.headers.get('location') ?? '', closed.url).searchParams.get('workspace') ?? '';
    await owner.get(`/workspaces/${teamId}`);
    const res = await owner.post(`/workspaces/${teamId}/invites`, {
      role: 'member',
      max_uses: '1',
      expires_in_days: '1',
    });
    const token = /token=(sim_iv_[A-Za-z0-9_-]+)/.exec(await res.text())?.[1] as string;

    const stranger = new FormClient(closed.url);
    expect((await stranger.get('/sign-up')).status).toBe(403);
    expect((await stranger.get('/sign-up?invite=sim_iv_forged')).status).toBe(403);

    const invited = new FormClient(closed.url);
    expect((await invited.get(`/sign-up?invite=${token}`)).status).toBe(200);
    const email = `invite-mode-${Date.now()}@example.com`;
    const signedUp = await invited.post('/sign-up', { email, password: PASSWORD, invite: token });
    expect(signedUp.status).toBe(303);
    const { workspaceMembers: wm, users } = closed.server.db.t;
    const joined = await first(
      closed.server.db.orm
        .select({ role: wm.role })
        .from(wm)
        .innerJoin(users, eq(users.id, wm.userId))
        .where(and(eq(users.email, email), eq(wm.workspaceId, teamId))),
    );
    expect(joined?.role).toBe('member');
    // Used up: the next person is refused.
    expect((await new FormClient(closed.url).get(`/sign-up?invite=${token}`)).status).toBe(403);
  });
});
