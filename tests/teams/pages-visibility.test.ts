import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { saveUpstreamCredential } from '../../src/accounts/credentials.js';
import { first } from '../../src/db/store/index.js';
import { makeGrant } from '../helpers/database.js';
import { teamPageSteps } from '../helpers/team-pages.js';
import { startTeamServer, type TeamServer } from '../helpers/team-server.js';

/**
 * The team pages over HTTP, as a browser sends forms: what strangers and members can see of other
 * workspaces and other people's apps, and the audit and usage pages (filters, pages, exports).
 */
let ts: TeamServer;
const { person, team } = teamPageSteps(() => ts);

beforeAll(async () => {
  ts = await startTeamServer();
});
afterAll(async () => {
  await ts?.close();
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
    const older = /href="([^"]*before=[^"]*)">Older events/
      .exec(owner.browser.lastHtml)?.[1]
      ?.replaceAll('&amp;', '&');
    expect(older).toContain('kind=tool_call');
    await owner.browser.get(older as string);
    expect((owner.browser.lastHtml.match(/<tr>/g) ?? []).length - 1).toBe(10);
    expect(owner.browser.lastHtml).not.toContain('Older events');
    expect(owner.browser.lastHtml).toContain('Newer events');
    // A page number from a link made before cursors leads to the newest page of the same filters.
    const legacy = await owner.browser.get(`/workspaces/${id}/audit${q}&page=2`);
    expect(legacy.status).toBe(302);
    expect(legacy.headers.get('location')).toBe(`/workspaces/${id}/audit${q}`);

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
