import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPE_DESCRIPTIONS, SCOPES } from '../../src/oauth/scopes.js';
import { type SandboxServer, startSandboxServer } from '../../src/sandbox/server.js';
import { FormClient } from '../helpers/forms.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { buildTeamScene, type TeamScene } from '../helpers/team-scene.js';

/**
 * The team pages in plain words, over HTTP: permissions as their descriptions, the
 * API user ID explained, people by email and never by id, audit events as sentences with
 * machine-readable times, this month's count beside each cap, effective permissions of connected apps,
 * invite notes, and the usage page's charts with their table.
 */
let sandbox: SandboxServer;
let server: TestServer;
let scene: TeamScene;
let owner: FormClient;

beforeAll(async () => {
  sandbox = await startSandboxServer({ port: 0, speed: 'instant' });
  server = await startTestServer({ upstream: { searchUrl: sandbox.searchUrl, agentUrl: sandbox.agentUrl } });
  scene = await buildTeamScene(server, sandbox);
  owner = new FormClient(server.url);
  const [name, value] = scene.owner.cookie.split('=') as [string, string];
  owner.cookies.set(name, value);
});
afterAll(async () => {
  await server?.close();
  await sandbox?.close();
});

/** What a reader sees: the text of the page's body, without markup, attributes or scripts. */
function visibleText(html: string): string {
  return (html.split('<body>')[1] ?? html)
    .replace(/<script[\s\S]*?<\/script>/g, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ');
}

async function page(path: string): Promise<string> {
  const res = await owner.get(path);
  expect(res.status, path).toBe(200);
  return owner.lastHtml;
}

describe('every team page speaks plainly', () => {
  const pages = () => [
    `/workspaces/${scene.teamId}`,
    `/workspaces/${scene.teamId}/members/${scene.mia.id}`,
    `/workspaces/${scene.teamId}/apps`,
    `/workspaces/${scene.teamId}/audit`,
    `/workspaces/${scene.teamId}/usage`,
    '/account/apps',
  ];

  it('no scope code, no header name, no account id and no raw JSON in what a reader sees', async () => {
    for (const path of pages()) {
      const text = visibleText(await page(path));
      for (const scope of SCOPES) expect(text, `${path} shows ${scope}`).not.toContain(scope);
      expect(text, path).not.toMatch(/X-SERVICE|SERVICE-USER/i);
      for (const p of [scene.owner, scene.admin, scene.long, scene.mia])
        expect(text, path).not.toContain(p.id);
      expect(text, path).not.toMatch(/[{}]|"\w+":/);
    }
  });

  it('the team page explains the API user ID and shows this month’s count beside each cap', async () => {
    const text = visibleText(await page(`/workspaces/${scene.teamId}`));
    expect(text).toContain('The API user ID is the name the Social Intelligence API files');
    // Five credit-spending calls upstream accepted this month against a cap of five.
    expect(text).toContain('Cap: 5 of 5 credit-spending calls used this month (reached)');
    // A refused call does not count: Mia's one refused search leaves her at 0 of 10.
    expect(text).toContain('Cap: 0 of 10 credit-spending calls used this month');
    expect(text).toContain('No monthly cap · 3 credit-spending calls this month');
    expect(text).toContain('mia-analyst (set by an admin)');
  });

  it('a member’s settings page says what the user ID is and how far into the cap they are', async () => {
    const text = visibleText(await page(`/workspaces/${scene.teamId}/members/${scene.long.id}`));
    expect(text).toContain('The name the Social Intelligence API files this member’s searches');
    expect(text).toContain('This month so far: 5 credit-spending calls.');
    for (const scope of SCOPES) expect(text).toContain(SCOPE_DESCRIPTIONS[scope]);
  });

  it('connected apps show what they can do now: granted and within the member’s settings', async () => {
    const html = await page(`/workspaces/${scene.teamId}/apps`);
    // Mia's Cursor was allowed to start searches before her settings became read-only.
    const cursor = html.slice(html.indexOf('>Cursor<'), html.indexOf('</tr>', html.indexOf('>Cursor<')));
    expect(cursor).toContain(SCOPE_DESCRIPTIONS['searches:read']);
    expect(cursor).toContain('Given to it, but the member’s team settings do not allow:');
    expect(cursor).toContain(`<li class="perm-off">${SCOPE_DESCRIPTIONS['searches:write']}</li>`);
    expect(cursor).toContain('mia.member@example.com');
  });
});

describe('the audit trail', () => {
  it('says what happened in sentences, people by email, times as machine-readable local times', async () => {
    const html = await page(`/workspaces/${scene.teamId}/audit`);
    const text = visibleText(html);
    expect(text).toContain('Changed adrian.admin@example.com’s role from member to admin.');
    expect(text).toContain(
      'Created an invite link to join as an admin, for any number of people, valid 14 days.',
    );
    expect(text).toContain(
      'Connected an app allowed to read searches, start searches, read agent runs and schedules and start and change agent runs and schedules.',
    );
    expect(text).toContain('Refused submit_keyword_search: their team settings do not allow start searches.');
    expect(text).toContain('Linked the workspace’s API credentials.');
    expect(text).toContain('Called submit_keyword_search.');
    expect(text).toMatch(/Done in 180 ms/);
    // Every time is a <time> the page's script shows in the reader's zone; served in UTC.
    expect(html).toMatch(
      /<time class="local" datetime="\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z">\d{4}-\d\d-\d\d \d\d:\d\d UTC<\/time>/,
    );
    expect(html).toContain('<script src="/assets/local-time.js" defer=""></script>');
  });

  it('the exports keep the raw record: ids, codes, ISO times and the detail as data', async () => {
    const json = await owner.get(`/workspaces/${scene.teamId}/audit?format=json&kind=member_role_changed`);
    const body = (await json.json()) as {
      events: Array<{ time: string; userId: string; detail: { member: string } }>;
    };
    expect(body.events[0]?.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(body.events[0]?.userId).toBe(scene.owner.id);
    expect(body.events[0]?.detail.member).toBe(scene.admin.id);
    await owner.get(`/workspaces/${scene.teamId}/audit?format=csv&kind=member_role_changed`);
    expect(owner.lastHtml).toContain(
      `"{""member"":""${scene.admin.id}"",""from"":""member"",""to"":""admin""}"`,
    );
  });
});

describe('invite links', () => {
  it('carry an optional note of whom they are for: shown to admins with the expiry, never to the invitee', async () => {
    await owner.get(`/workspaces/${scene.teamId}`);
    const res = await owner.post(`/workspaces/${scene.teamId}/invites`, {
      role: 'member',
      max_uses: '1',
      expires_in_days: '3',
      note: '  Priya   from finance ',
    });
    expect(res.status).toBe(201);
    const created = visibleText(owner.lastHtml);
    expect(created).toContain('send it to Priya from finance : it is shown only once');
    expect(created).toMatch(/until \d{4}-\d\d-\d\d \d\d:\d\d UTC \(in 3 days\)/);
    // The link is in a read-only field with a copy button (shown by /assets/copy.js).
    expect(owner.lastHtml).toMatch(/<input id="invite-link" type="text" readonly="" value="[^"]+"\/?>/);
    expect(owner.lastHtml).toContain('data-copy="invite-link"');
    expect(owner.lastHtml).toContain('<script src="/assets/copy.js" defer=""></script>');
    const link = /id="invite-link" type="text" readonly="" value="([^"]+)"/.exec(owner.lastHtml)?.[1] ?? '';

    const list = visibleText(await page(`/workspaces/${scene.teamId}`));
    expect(list).toMatch(/Priya from finance Member 0 of 1 \d{4}-\d\d-\d\d \d\d:\d\d UTC \(in 3 days\)/);

    const invitee = new FormClient(server.url);
    await invitee.get(
      new URL(link.replace(/&amp;/g, '&')).pathname + new URL(link.replace(/&amp;/g, '&')).search,
    );
    expect(invitee.lastHtml).toContain('Northwind Research');
    expect(invitee.lastHtml).not.toContain('Priya');
    // Nor is it in the audit trail.
    const rows = await server.db.orm.select().from(server.db.t.auditEvents);
    expect(rows.some((r) => (r.detail ?? '').includes('Priya'))).toBe(false);
  });

  it('a note longer than 200 characters is refused beside its field, and nothing is created', async () => {
    await owner.get(`/workspaces/${scene.teamId}`);
    const before = (owner.lastHtml.match(/<tr>/g) ?? []).length;
    const res = await owner.post(`/workspaces/${scene.teamId}/invites`, {
      role: 'member',
      max_uses: '1',
      expires_in_days: '3',
      note: 'x'.repeat(201),
    });
    expect(res.status).toBe(400);
    expect(owner.lastHtml).toMatch(
      /<p id="invite-note-error" class="error field-error">A note has at most 200 characters.<\/p>/,
    );
    expect(owner.lastHtml).toMatch(/id="invite-note"[^>]*aria-invalid="true"/);
    await owner.get(`/workspaces/${scene.teamId}`);
    expect((owner.lastHtml.match(/<tr>/g) ?? []).length).toBe(before);
  });
});

describe('the usage page', () => {
  it('draws calls per member per day as an SVG with a table of the same figures, and this month against caps', async () => {
    const html = await page(`/workspaces/${scene.teamId}/usage?days=30`);
    const svg = /<svg class="chart-plot"[^>]*>[\s\S]*?<\/svg>/.exec(html)?.[0] ?? '';
    expect(svg).toMatch(/role="img"/);
    expect(svg).toMatch(/aria-labelledby="daily-caption daily-summary"/);
    const bars = svg.match(/<rect class="series-\d"/g) ?? [];
    const figures =
      /<caption>Tool calls per member per day<\/caption>[\s\S]*?<\/table>/.exec(html)?.[0] ?? '';
    const rows = [
      ...figures.matchAll(/<tr><td>(\d{4}-\d\d-\d\d)<\/td><td>([^<]+)<\/td><td>(\d+)<\/td><\/tr>/g),
    ];
    // One bar per member and day with calls, and one table row for each.
    expect(bars.length).toBeGreaterThan(10);
    expect(rows.length).toBe(bars.length);
    const total = rows.reduce((n, r) => n + Number(r[3]), 0);
    const calls = (await server.db.orm.select().from(server.db.t.auditEvents)).filter(
      (r) => r.kind === 'tool_call' && r.workspaceId === scene.teamId,
    );
    expect(total).toBe(calls.length);
    expect(visibleText(html)).toContain(`${total} calls by 3 members the last 30 days; the busiest day was`);

    const caps = visibleText(html.slice(html.indexOf('id="caps-heading"')));
    expect(caps).toContain(
      'maximilian.featherstonehaugh-wolfeschlegel@research-department.example.com 5 of 5 (cap reached)',
    );
    expect(caps).toContain('mia.member@example.com 0 of 10');
    expect(caps).toContain('adrian.admin@example.com 0 credit-spending calls, no cap');
  });
});
