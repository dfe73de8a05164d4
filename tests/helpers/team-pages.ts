import { expect } from 'vitest';
import { createSession } from '../../src/accounts/sessions.js';
import { createUser } from '../../src/accounts/users.js';
import { cookiePolicy } from '../../src/web/cookies.js';
import { FormClient } from './forms.js';
import type { TeamServer } from './team-server.js';

/**
 * The team pages' steps as a browser takes them (people signed in, a team created through its form,
 * invite links made and accepted), for the tests of the team pages over HTTP (tests/teams/pages-*).
 */
export const PASSWORD = 'correct horse battery staple';

export interface Person {
  id: string;
  email: string;
  personalId: string;
  browser: FormClient;
}

/** The steps on the server `server()` returns (started in the test file's beforeAll). */
export function teamPageSteps(server: () => TeamServer) {
  let counter = 0;
  async function person(label: string): Promise<Person> {
    counter += 1;
    const email = `${label}-${counter}-${process.pid}@example.com`;
    const created = await createUser(server().server.db, { email, password: PASSWORD });
    if (!created.ok) throw new Error(created.reason);
    const browser = new FormClient(server().url);
    browser.cookies.set(
      cookiePolicy(server().server.config).sessionName,
      await createSession(server().server.db, created.user.id, 'test'),
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

  return { person, createTeamVia, inviteVia, join, team };
}
