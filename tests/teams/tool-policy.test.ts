import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { saveUpstreamCredential } from '../../src/accounts/credentials.js';
import { setMemberPolicy } from '../../src/teams/member-policy.js';
import { setTeamSettings } from '../../src/teams/team-settings.js';
import { connectV2, type Json, textOf } from '../helpers/harness.js';
import {
  accessTokenFor,
  auditOf,
  makePerson,
  makeTeam,
  ok,
  type Team,
  type TeamPerson,
} from '../helpers/team-fixture.js';
import { startTeamServer, type TeamServer } from '../helpers/team-server.js';

/**
 * The team roles and defaults on the real tool call path: the v2 SDK client, /mcp with the
 * bearer check and the team policy hook, and the sandbox over HTTP (its request log shows what reached
 * upstream). One team: an owner, an admin, and two plain members, Alice and Bob.
 */
let ts: TeamServer;
let t: Team;

beforeAll(async () => {
  ts = await startTeamServer();
  t = await makeTeam(ts);
});
afterAll(async () => {
  await t?.close();
  await ts?.close();
});

/** How many requests with the team's token reached the sandbox so far. */
async function mark(): Promise<number> {
  return (await ts.requests(t.token)).length;
}
/** The requests that reached the sandbox since `since`. */
async function since(count: number) {
  return (await ts.requests(t.token)).slice(count);
}
function call(p: TeamPerson, name: string, args: Record<string, unknown> = {}): Promise<Json> {
  return p.client.callTool({ name, arguments: args });
}
async function lastToolCall(userId: string, tool: string) {
  return (await auditOf(ts, t.id))
    .filter((r) => r.kind === 'tool_call' && r.userId === userId && r.tool === tool)
    .at(-1);
}
const allowAll = {
  upstreamUserId: '',
  maxScopes: [
    'searches:read',
    'searches:write',
    'agent:read',
    'agent:write',
    'account:read',
    'account:write',
  ],
  monthlyWriteCap: '',
};

/** A run created straight at the sandbox as `p` (as their own upstream user id), e.g. from another app. */
async function runAs(p: TeamPerson, question: string): Promise<string> {
  const res = await fetch(`${ts.sandbox.agentUrl}/api/v1/runs`, {
    method: 'POST',
    headers: {
      'x-service-token': t.token,
      'x-service-user-id': p.upstreamUserId,
      'content-type': 'application/json',
    },
    body: JSON.stringify({ question }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as Json).id as string;
}

const SEARCH = { query: 'heat pumps', platforms: ['reddit'], max_post: 10 };
const SCHEDULE = {
  name: 'Weekly heat pumps',
  question: 'What changed this week about heat pumps?',
  recurrence_type: 'daily',
  recurrence_time: '09:00',
  recurrence_timezone: 'Europe/London',
  starts_at: '2030-01-01T09:00:00Z',
};

describe('team-wide changes are owner/admin-only by default', () => {
  it('update_integration_setup is refused to a plain member by default: nothing reaches upstream, and the refusal is audited', async () => {
    const before = await mark();
    const result = await call(t.bob, 'update_integration_setup', {
      return_url: 'https://collector.example/all-results',
    });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/only the team's owners and admins may change it/);
    expect(textOf(result)).toContain('Can change team webhook');
    expect((await since(before)).filter((r) => r.method !== 'GET')).toEqual([]);
    const credential = await ts.control('GET', `/credentials/${t.token}`);
    expect(credential.return_url).not.toBe('https://collector.example/all-results');
    expect(await lastToolCall(t.bob.id, 'update_integration_setup')).toMatchObject({
      status: 'refused',
      detail: { reason: 'team_webhook' },
    });
  });

  it('owners and admins change the team webhook; the audit keeps the old and new URL with the query string redacted', async () => {
    const first = await call(t.admin, 'update_integration_setup', {
      return_url: 'https://hooks.example.com/team/in?secret=abc123',
    });
    expect(first.isError).toBeFalsy();
    const second = await call(t.owner, 'update_integration_setup', {
      return_url: 'https://hooks.example.com/v2/in',
    });
    expect(second.isError).toBeFalsy();
    const changes = (await auditOf(ts, t.id)).filter((r) => r.kind === 'webhook_changed');
    expect(changes.map((r) => [r.userId, r.detail])).toEqual([
      [t.admin.id, { from: null, to: 'https://hooks.example.com/team/in?(redacted)' }],
      [
        t.owner.id,
        { from: 'https://hooks.example.com/team/in?(redacted)', to: 'https://hooks.example.com/v2/in' },
      ],
    ]);
    expect(JSON.stringify(await auditOf(ts, t.id))).not.toContain('abc123');
  });

  it('a plain member changes the team webhook only once an admin ticks "Can change team webhook" for them', async () => {
    const { db } = ts.server;
    expect(
      (await call(t.alice, 'update_integration_setup', { return_url: 'https://a.example/hook' })).isError,
    ).toBe(true);
    ok(await setMemberPolicy(db, t.id, t.admin.id, t.alice.id, { ...allowAll, canChangeWebhook: true }));
    const allowed = await call(t.alice, 'update_integration_setup', { return_url: 'https://a.example/hook' });
    expect(allowed.isError).toBeFalsy();
    expect((await ts.control('GET', `/credentials/${t.token}`)).return_url).toBe('https://a.example/hook');
    // The switch is Alice's alone.
    expect(
      (await call(t.bob, 'update_integration_setup', { return_url: 'https://b.example/hook' })).isError,
    ).toBe(true);
    ok(await setMemberPolicy(db, t.id, t.admin.id, t.alice.id, { ...allowAll, canChangeWebhook: false }));
    expect(
      (await call(t.alice, 'update_integration_setup', { return_url: 'https://a.example/again' })).isError,
    ).toBe(true);
  });

  it('in a personal workspace its sole owner changes the webhook', async () => {
    const solo = await makePerson(ts, 'solo');
    const token = (await ts.control('POST', '/credentials', {})).token as string;
    await saveUpstreamCredential(ts.server.db, ts.server.secrets, {
      workspaceId: solo.personalId,
      linkedBy: solo.id,
      token,
      upstreamUserId: 'solo',
      verifiedAt: Date.now(),
    });
    const client = await connectV2(ts.mcpUrl, await accessTokenFor(ts, solo.id, solo.personalId));
    const result = await client.callTool({
      name: 'update_integration_setup',
      arguments: { return_url: 'https://solo.example/hook' },
    });
    await client.close();
    expect(result.isError).toBeFalsy();
  });
});

describe('members change only their own runs and schedules', () => {
  it('cancel, rerun, rename, pin and delete of a teammate’s agent run are refused before upstream; its creator and admins may', async () => {
    const started = await call(t.alice, 'start_agent_run', {
      question: 'What do people say about heat pumps?',
    });
    expect(started.isError).toBeFalsy();
    const done = (started.structuredContent as Json).run_id as string;
    // A run still pending (clock frozen at a realistic speed), so cancel and rerun are legal upstream.
    await ts.control('PATCH', `/credentials/${t.token}`, { speed: 'realistic' });
    await ts.control('POST', '/clock', { freeze: true });
    const pending = await runAs(t.alice, 'A slow question about heat pumps?');
    try {
      const before = await mark();
      const attempts: Array<[string, Record<string, unknown>]> = [
        ['cancel_agent_run', { run_id: pending }],
        ['rerun_agent_run', { run_id: pending }],
        ['update_agent_run', { run_id: done, label: 'mine now' }],
        ['update_agent_run', { run_id: done, pinned: true }],
        ['delete_agent_run', { run_id: done }],
      ];
      for (const [name, args] of attempts) {
        const result = await call(t.bob, name, args);
        expect(result.isError, name).toBe(true);
        expect(textOf(result)).toMatch(
          /belongs to another team member, and members may change only their own/,
        );
        expect(await lastToolCall(t.bob.id, name)).toMatchObject({
          status: 'refused',
          detail: { reason: 'not_owner', item: 'run', id: args.run_id },
        });
      }
      // Upstream was only asked whose the runs are.
      const reached = await since(before);
      expect(reached.length).toBe(attempts.length);
      expect(reached.every((r) => r.method === 'GET' && r.user_id === t.bob.upstreamUserId)).toBe(true);

      // The run's creator cancels it; an admin renames a member's run.
      const cancelled = await call(t.alice, 'cancel_agent_run', { run_id: pending });
      expect(cancelled.isError).toBeFalsy();
      expect((cancelled.structuredContent as Json).cancelled).toBe(true);
      expect(
        (await call(t.admin, 'update_agent_run', { run_id: done, label: 'reviewed' })).isError,
      ).toBeFalsy();
      expect((await call(t.alice, 'update_agent_run', { run_id: done, pinned: true })).isError).toBeFalsy();
      expect((await call(t.owner, 'delete_agent_run', { run_id: done })).isError).toBeFalsy();
    } finally {
      await ts.control('POST', '/clock', { freeze: false });
      await ts.control('PATCH', `/credentials/${t.token}`, { speed: null });
    }
  });

  it('update, pause, resume and delete of a teammate’s schedule are refused before upstream; its creator and admins may', async () => {
    const created = await call(t.alice, 'create_agent_schedule', SCHEDULE);
    expect(created.isError).toBeFalsy();
    const id = (created.structuredContent as Json).id as string;
    const before = await mark();
    const attempts: Array<[string, Record<string, unknown>]> = [
      ['update_agent_schedule', { schedule_id: id, question: 'Hijacked question?' }],
      ['pause_agent_schedule', { schedule_id: id }],
      ['resume_agent_schedule', { schedule_id: id }],
      ['delete_agent_schedule', { schedule_id: id }],
    ];
    for (const [name, args] of attempts) {
      const result = await call(t.bob, name, args);
      expect(result.isError, name).toBe(true);
      expect(textOf(result)).toMatch(/This schedule belongs to another team member/);
      expect(await lastToolCall(t.bob.id, name)).toMatchObject({
        status: 'refused',
        detail: { reason: 'not_owner', item: 'schedule', id },
      });
    }
    expect((await since(before)).filter((r) => r.method !== 'GET')).toEqual([]);
    const record = (await ts.control('GET', `/credentials/${t.token}`)).schedules.find(
      (s: Json) => s.id === id,
    );
    expect(record).toMatchObject({ question: SCHEDULE.question, paused: false });

    expect((await call(t.alice, 'pause_agent_schedule', { schedule_id: id })).isError).toBeFalsy();
    expect((await call(t.admin, 'resume_agent_schedule', { schedule_id: id })).isError).toBeFalsy();
    expect(
      (await call(t.alice, 'update_agent_schedule', { schedule_id: id, name: 'Daily heat pumps' })).isError,
    ).toBeFalsy();
    expect((await call(t.admin, 'delete_agent_schedule', { schedule_id: id })).isError).toBeFalsy();
  });
});

describe('reading teammates’ work is a team setting (default: yes)', () => {
  let aliceSearch: number;
  let bobSearch: number;
  let aliceRun: string;
  let aliceSchedule: string;

  beforeAll(async () => {
    aliceSearch = ((await call(t.alice, 'submit_keyword_search', SEARCH)).structuredContent as Json)
      .search_id;
    bobSearch = (
      (await call(t.bob, 'submit_keyword_search', { ...SEARCH, query: 'solar' })).structuredContent as Json
    ).search_id;
    aliceRun = (
      (await call(t.alice, 'start_agent_run', { question: 'Alice asks?' })).structuredContent as Json
    ).run_id;
    await call(t.bob, 'start_agent_run', { question: 'Bob asks?' });
    aliceSchedule = ((await call(t.alice, 'create_agent_schedule', SCHEDULE)).structuredContent as Json).id;
    await call(t.bob, 'create_agent_schedule', { ...SCHEDULE, name: 'Bob’s' });
  });

  it('by default members read teammates’ runs, schedules and searches', async () => {
    expect((await call(t.bob, 'get_keyword_search', { search_id: aliceSearch })).isError).toBeFalsy();
    expect((await call(t.bob, 'get_agent_run', { run_id: aliceRun })).isError).toBeFalsy();
    expect((await call(t.bob, 'get_agent_schedule', { schedule_id: aliceSchedule })).isError).toBeFalsy();
  });

  it('when the team keeps work private, members read and list only their own runs, schedules and searches; admins read all', async () => {
    ok(await setTeamSettings(ts.server.db, t.id, t.admin.id, { membersReadTeamWork: false }));
    try {
      const refusedReads: Array<[string, Record<string, unknown>]> = [
        ['get_keyword_search', { search_id: aliceSearch }],
        ['get_keyword_search_posts_data', { search_id: aliceSearch }],
        ['get_keyword_search_topic_tree', { search_id: aliceSearch }],
        ['get_agent_run', { run_id: aliceRun }],
        ['get_agent_schedule', { schedule_id: aliceSchedule }],
        ['list_agent_schedule_runs', { schedule_id: aliceSchedule }],
        ['start_agent_run', { question: 'Follow up on Alice?', parent_run_id: aliceRun }],
      ];
      for (const [name, args] of refusedReads) {
        const result = await call(t.bob, name, args);
        expect(result.isError, name).toBe(true);
        expect(textOf(result)).toMatch(/This team lets members read only their own/);
        expect(await lastToolCall(t.bob.id, name)).toMatchObject({
          status: 'refused',
          detail: { reason: 'teammates_work' },
        });
      }
      // Their own still reads.
      expect((await call(t.bob, 'get_keyword_search', { search_id: bobSearch })).isError).toBeFalsy();

      // Lists hold only their own items: runs through upstream's user_id filter, the rest by creator.
      const before = await mark();
      const runs = (await call(t.bob, 'list_agent_runs')).structuredContent as Json;
      expect(runs.runs.length).toBeGreaterThan(0);
      expect(new Set(runs.runs.map((r: Json) => r.service_user_id))).toEqual(new Set([t.bob.upstreamUserId]));
      expect((await since(before))[0]?.query).toContain(`user_id=${t.bob.upstreamUserId}`);
      const other = await call(t.bob, 'list_agent_runs', { user_id: t.alice.upstreamUserId });
      expect(other.isError).toBe(true);
      const searches = (await call(t.bob, 'get_keyword_searches')).structuredContent as Json;
      expect(searches.keyword_searches.map((s: Json) => s.id)).toEqual([bobSearch]);
      const schedules = (await call(t.bob, 'list_agent_schedules')).structuredContent as Json;
      expect(schedules.schedules.map((s: Json) => s.service_user_id)).toEqual([t.bob.upstreamUserId]);

      // Owners and admins read everything.
      expect((await call(t.admin, 'get_keyword_search', { search_id: bobSearch })).isError).toBeFalsy();
      expect((await call(t.admin, 'get_agent_run', { run_id: aliceRun })).isError).toBeFalsy();
      const all = (await call(t.admin, 'get_keyword_searches')).structuredContent as Json;
      expect(all.keyword_searches.map((s: Json) => s.id)).toEqual(
        expect.arrayContaining([aliceSearch, bobSearch]),
      );
    } finally {
      ok(await setTeamSettings(ts.server.db, t.id, t.admin.id, { membersReadTeamWork: true }));
    }
    expect((await call(t.bob, 'get_keyword_search', { search_id: aliceSearch })).isError).toBeFalsy();
  });
});
