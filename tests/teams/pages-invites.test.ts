import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSession } from '../../src/accounts/sessions.js';
import { createUser } from '../../src/accounts/users.js';
import { getMembership } from '../../src/accounts/workspaces.js';
import { first } from '../../src/db/store/index.js';
import { hashToken } from '../../src/security/tokens.js';
import { cookiePolicy } from '../../src/web/cookies.js';
import { FormClient } from '../helpers/forms.js';
import { PASSWORD, teamPageSteps } from '../helpers/team-pages.js';
import { startTeamServer, type TeamServer } from '../helpers/team-server.js';

/**
 * The team pages over HTTP, as a browser sends forms: creating a team (it leads to the connect page),
 * invite links that work and those that do not, CSRF and escaping, and sign-up by invite only.
 */
let ts: TeamServer;
const { person, createTeamVia, inviteVia, join, team } = teamPageSteps(() => ts);

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
