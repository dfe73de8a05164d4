import { McpServer } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { saveUpstreamCredential } from '../../../src/accounts/credentials.js';
import { createUser } from '../../../src/accounts/users.js';
import { SCOPES } from '../../../src/oauth/scopes.js';
import { acceptInvite, createInvite } from '../../../src/teams/invites.js';
import { setMemberPolicy } from '../../../src/teams/member-policy.js';
import { createTeam } from '../../../src/teams/teams.js';
import { grantThroughCode } from '../../helpers/grants.js';
import type { Json } from '../../helpers/harness.js';
import { startHarness } from '../../helpers/harness.js';
import { both, clientFor, rawPost, recording, type Stack, T0 } from './wire-stacks.js';

/**
 * Plain tools/call of tools that do not wait are answered outside the SDK's per-request server
 * (src/mcp/sdk-bypass/direct-call.ts); this proves the wire did not change. Two stacks, each a sandbox and a
 * server, one on the plain SDK path (`sdkBypass: 'off'`) and one on the direct path, get the same
 * requests in the same order from real v1 and v2 clients and raw HTTP in both protocol eras, with and
 * without progress tokens, with the sandbox clocks frozen at the same instant. Every tools/call answer
 * is recorded as sent (status, headers, the body as decoded) and must be byte-identical, the request id
 * and date headers aside.
 */

interface Ids {
  keyword: number;
  user: number;
  expert: number;
  run: string;
  schedule: string;
}

interface Side {
  s: Stack;
  ids: Ids;
  /** A team member whose ceiling lacks searches:read, and who may not read teammates' searches. */
  member: string;
  /** A grant whose workspace has no upstream credential. */
  unlinked: string;
}

const STEP = { step: 0 };

async function grantFor(s: Stack, userId: string, workspaceId: string): Promise<string> {
  return (await grantThroughCode(s.h.server, { userId, workspaceId, clientId: 'test-client' })).access_token;
}

function ok<T>(outcome: { ok: true; value: T } | { ok: false; message: string }): T {
  if (!outcome.ok) throw new Error(outcome.message);
  return outcome.value;
}

/** A team whose admin holds `s.access`'s upstream token, and a member limited as `Side.member` says. */
async function teamMember(s: Stack): Promise<string> {
  const { db, secrets } = s.h.server;
  STEP.step += 1;
  const person = async (label: string) => {
    const created = await createUser(db, {
      email: `${label}-${STEP.step}-${process.pid}@example.com`,
      password: 'correct horse battery staple',
    });
    if (!created.ok) throw new Error(created.reason);
    return created.user.id;
  };
  const admin = await person('admin');
  const member = await person('member');
  const teamId = ok(await createTeam(db, admin, 'Wire Team'));
  await saveUpstreamCredential(db, secrets, {
    workspaceId: teamId,
    linkedBy: admin,
    token: s.upstream,
    upstreamUserId: 'analyst-1',
    verifiedAt: Date.now(),
  });
  const invite = ok(
    await createInvite(db, teamId, admin, { role: 'member', maxUses: '1', expiresInDays: '1' }),
  );
  ok(await acceptInvite(db, invite.token, teamId, member));
  ok(
    await setMemberPolicy(db, teamId, admin, member, {
      upstreamUserId: 'analyst-7',
      maxScopes: SCOPES.filter((scope) => scope !== 'searches:read'),
      monthlyWriteCap: '',
    }),
  );
  return grantFor(s, member, teamId);
}

async function side(options: { sdkBypass?: 'off' }): Promise<Side> {
  // A token budget the full records exceed, so trimmed answers are compared too.
  const h = await startHarness({
    searchMaxWaitMs: 30_000,
    runMaxWaitMs: 30_000,
    maxResultTokens: 3_000,
    ...options,
  });
  const upstream = await h.credential({ speed: 'instant', producer: true, synth_posts: 12 });
  const access = await h.token({ upstreamToken: upstream });
  await h.control('POST', '/clock', { freeze: true, set: T0 });
  const s: Stack = { h, recorded: [], upstream, access };
  // The records the reads below read, made the same way on both sides (waiting tools: not compared).
  const client = await clientFor(s, 'v2');
  const made = async (name: string, args: Json) =>
    (await client.callTool({ name, arguments: args })).structuredContent as Json;
  const keyword = await made('submit_keyword_search', { query: 'heat pumps', platforms: ['twitter'] });
  const user = await made('submit_user_search', { query: 'examplenews', platform: 'twitter' });
  const expert = await made('submit_expert_search', { query: 'epidemiologists and vaccines' });
  const run = await made('start_agent_run', { question: 'Are heat pumps trending?' });
  const schedule = await made('create_agent_schedule', {
    name: 'Weekly heat pumps',
    question: 'What changed in the heat pump conversation this week?',
    recurrence_type: 'weekly',
    recurrence_time: '09:00',
    recurrence_timezone: 'Europe/London',
    starts_at: '2030-01-07T00:00:00Z',
    recurrence_day_of_week: 1,
    available_credits: 2,
  });
  await client.close();
  s.recorded.length = 0;
  const member = await teamMember(s);
  const unlinked = await h.token({ upstreamToken: null });
  return {
    s,
    ids: {
      keyword: keyword.search_id,
      user: user.search_id,
      expert: expert.search_id,
      run: run.run_id,
      schedule: schedule.id ?? schedule.schedule_id,
    },
    member,
    unlinked,
  };
}

let sdkPath: Side;
let direct: Side;
beforeAll(async () => {
  sdkPath = await side({ sdkBypass: 'off' });
  direct = await side({});
  // Run and schedule ids are random UUIDs (the recorder writes <uuid>); search ids count up alike.
  const numeric = (ids: Ids) => [ids.keyword, ids.user, ids.expert];
  expect(numeric(direct.ids)).toEqual(numeric(sdkPath.ids));
}, 60_000);
afterAll(async () => {
  await sdkPath?.s.h.close();
  await direct?.s.h.close();
});

/** Every tool that does not wait, with arguments that read or change the records made above. */
function calls(ids: Ids): Array<[string, Json]> {
  return [
    ['get_keyword_search', { search_id: ids.keyword }],
    ['get_keyword_search', { search_id: ids.keyword, detail: 'full' }],
    ['get_keyword_searches', {}],
    ['get_keyword_search_topic_tree', { search_id: ids.keyword }],
    ['get_keyword_search_posts_data', { search_id: ids.keyword, limit: 5 }],
    ['get_keyword_search_posts_data', { search_id: ids.keyword, detail: 'full', offset: 3 }],
    ['get_user_search', { search_id: ids.user }],
    ['get_user_searches', { show: 'finished' }],
    ['get_user_search_posts_data', { search_id: ids.user }],
    ['get_expert_search', { search_id: ids.expert }],
    ['get_expert_searches', {}],
    ['get_agent_run', { run_id: ids.run }],
    ['get_agent_run', { run_id: ids.run, detail: 'full' }],
    ['list_agent_runs', {}],
    ['list_agent_schedules', {}],
    ['get_agent_schedule', { schedule_id: ids.schedule }],
    ['list_agent_schedule_runs', { schedule_id: ids.schedule }],
    ['pause_agent_schedule', { schedule_id: ids.schedule }],
    ['resume_agent_schedule', { schedule_id: ids.schedule }],
    ['update_agent_run', { run_id: ids.run, label: 'Heat pumps, reviewed', pinned: true }],
    ['usage', {}],
    ['get_usage_by_month', { month: '2026-02' }],
    ['get_usage_by_month', {}],
    ['get_integration_setup', {}],
    // Refused by the tool: invalid arguments, an unknown record (upstream 404), an unknown argument.
    ['get_keyword_search', { search_id: 'seven' }],
    ['get_keyword_search', { search_id: 987_654 }],
    ['get_agent_run', { run_id: ids.run, colour: 'blue' }],
    ['get_agent_schedule', { schedule_id: '00000000-0000-4000-8000-000000000000' }],
  ];
}

/** A raw post, and its answer read to the end (an event stream's headers come before the call runs). */
async function answered(
  s: Stack,
  ...rest: Parameters<typeof rawPost> extends [Stack, ...infer R] ? R : never
) {
  await rawPost(s, ...rest);
  await s.recorded.at(-1)?.body;
}

const bodiesOf = (recorded: Array<{ body: string }>) => recorded.map((r) => r.body);

/**
 * The SDK exchanges (per-request servers connected) each stack's scenario needed: the direct path is
 * proven taken, not only harmless. Both stacks run in this process, one after the other.
 */
async function exchanges(scenario: (s: Stack) => Promise<void>) {
  const spy = vi.spyOn(McpServer.prototype, 'connect');
  const counts = new Map<Stack, number>();
  try {
    const [sdk, ours] = await both(sdkPath.s, direct.s, async (s) => {
      const before = spy.mock.calls.length;
      await scenario(s);
      counts.set(s, spy.mock.calls.length - before);
    });
    return { sdk, ours, onSdkPath: counts.get(sdkPath.s), onDirectPath: counts.get(direct.s) };
  } finally {
    spy.mockRestore();
  }
}

describe.each(['v2', 'v1'] as const)('the %s client sees the same bytes on both paths', (era) => {
  it('for every tool that does not wait, read, change and refused', async () => {
    const { sdk, ours, onSdkPath, onDirectPath } = await exchanges(async (s) => {
      const ids = s === sdkPath.s ? sdkPath.ids : direct.ids;
      const client = await clientFor(s, era);
      for (const [name, args] of calls(ids)) await client.callTool({ name, arguments: args });
      await client.close();
    });
    const n = calls(sdkPath.ids).length;
    expect(sdk.length).toBe(n);
    expect(ours).toEqual(sdk);
    // Only the client's connection needed the SDK on the direct path (discovery or initialize).
    expect(onDirectPath).toBe((onSdkPath ?? 0) - n);
    expect(bodiesOf(sdk).filter((body) => body.includes('"_truncated":[')).length).toBeGreaterThan(0);
    // The paths are what they should be: JSON on 2026-07-28, one event on the 2025 era's stream.
    for (const body of bodiesOf(sdk)) {
      if (era === 'v2') expect(body).toMatch(/^\{"result":\{"content":\[/);
      else expect(body).toMatch(/^event: message\ndata: \{"result":\{"content":\[/);
    }
  });
});

describe('raw requests see the same bytes on both paths', () => {
  it.each([
    ['modern', undefined],
    ['modern', 3],
    ['legacy', undefined],
    ['legacy', 'token-4'],
  ] as const)('in the %s era with progress token %s, numeric and string ids', async (era, token) => {
    const { sdk, ours, onDirectPath } = await exchanges(async (s) => {
      const ids = s === sdkPath.s ? sdkPath.ids : direct.ids;
      const params = { name: 'get_keyword_search', arguments: { search_id: ids.keyword } };
      await answered(s, era, { id: 11, method: 'tools/call', params }, token as never);
      await answered(s, era, { id: 'call-12', method: 'tools/call', params }, token as never);
      const empty = { name: 'usage' };
      await answered(s, era, { id: 13, method: 'tools/call', params: empty }, token as never);
      await Promise.all(s.recorded.map((r) => r.body));
    });
    expect(sdk.length).toBe(3);
    expect(ours).toEqual(sdk);
    expect(onDirectPath).toBe(0);
    expect(sdk[1]?.body).toContain('"id":"call-12"');
  });

  it('when upstream fails, after the retries', async () => {
    const { sdk, ours, onDirectPath } = await exchanges(async (s) => {
      const ids = s === sdkPath.s ? sdkPath.ids : direct.ids;
      await s.h.control('PUT', '/faults', { token: s.upstream, error_rate: 1, error_status: 503 });
      const params = { name: 'get_keyword_search', arguments: { search_id: ids.keyword } };
      await answered(s, 'modern', { id: 21, method: 'tools/call', params });
      await answered(s, 'legacy', { id: 22, method: 'tools/call', params });
      await s.h.control('DELETE', '/faults');
      await Promise.all(s.recorded.map((r) => r.body));
    });
    expect(sdk.length).toBe(2);
    expect(ours).toEqual(sdk);
    expect(onDirectPath).toBe(0);
    expect(sdk[0]?.body).toContain('"isError":true');
  });

  it('when the route refuses the call (a member beyond their ceiling) or no credential is linked', async () => {
    const { sdk, ours, onDirectPath } = await exchanges(async (s) => {
      const me = s === sdkPath.s ? sdkPath : direct;
      const params = { name: 'get_keyword_search', arguments: { search_id: me.ids.keyword } };
      for (const [access, era] of [
        [me.member, 'modern'],
        [me.member, 'legacy'],
        [me.unlinked, 'modern'],
        [me.unlinked, 'legacy'],
      ] as const) {
        const as: Stack = { ...s, access };
        await answered(as, era, { id: 31, method: 'tools/call', params });
      }
      await Promise.all(s.recorded.map((r) => r.body));
    });
    expect(sdk.length).toBe(4);
    // The sentence names each server's own address.
    const own = (records: typeof sdk, who: Side) =>
      records.map((r) => ({ ...r, body: r.body.replaceAll(who.s.h.server.url, '<server>') }));
    expect(own(ours, direct)).toEqual(own(sdk, sdkPath));
    expect(onDirectPath).toBe(0);
    expect(sdk[0]?.body).toContain('"isError":true');
    expect(sdk[2]?.body).toContain('No upstream API credentials');
  });

  it('for requests the direct path leaves to the SDK (missing or mismatched headers, extra members)', async () => {
    const { sdk, ours, onSdkPath, onDirectPath } = await exchanges(async (s) => {
      const ids = s === sdkPath.s ? sdkPath.ids : direct.ids;
      const args = { search_id: ids.keyword };
      const post = async (headers: Record<string, string>, body: Json) => {
        await (await fetchRecorded(s, headers, body)).text();
        await s.recorded.at(-1)?.body;
      };
      const modern = {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
      };
      const meta = {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
        'io.modelcontextprotocol/clientCapabilities': {},
      };
      const call = (extra: Json = {}, params: Json = {}) => ({
        jsonrpc: '2.0',
        id: 41,
        method: 'tools/call',
        params: { name: 'get_keyword_search', arguments: args, _meta: meta, ...params },
        ...extra,
      });
      await post(modern, call()); // no Mcp-Name header: refused by the SDK
      await post({ ...modern, 'mcp-name': 'get_keyword_searches' }, call());
      await post({ ...modern, 'mcp-name': 'get_keyword_search' }, call({ extra: true }));
      await post({ ...modern, 'mcp-name': 'get_keyword_search' }, call({}, { requestState: 'x' }));
      await post({ ...modern, 'mcp-name': 'get_keyword_search' }, call({}, { arguments: [1] }));
      const named = { ...modern, 'mcp-name': 'get_keyword_search' };
      const envelope = (changes: Json) => call({}, { _meta: { ...meta, ...changes } });
      await post(named, envelope({ 'io.modelcontextprotocol/clientInfo': { name: 5 } })); // invalid envelope
      await post(named, envelope({ 'io.modelcontextprotocol/protocolVersion': '2026-08-01' })); // not served
      await post({ ...named, 'mcp-protocol-version': '2025-06-18' }, call()); // header and body disagree
      const legacy = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
      const plain = {
        jsonrpc: '2.0',
        id: 42,
        method: 'tools/call',
        params: { name: 'get_keyword_search', arguments: args },
      };
      await post({ ...legacy, 'mcp-protocol-version': '2024-01-01' }, plain);
      await post({ ...legacy, accept: 'application/json' }, plain);
      await post({ ...legacy, 'mcp-protocol-version': '2026-07-28' }, plain); // no envelope
      await post(legacy, { ...plain, params: { ...plain.params, _meta: { trace: 'x' } } });
      await Promise.all(s.recorded.map((r) => r.body));
    });
    expect(sdk.length).toBe(12);
    expect(ours).toEqual(sdk);
    expect(onDirectPath).toBe(onSdkPath);
    expect(onDirectPath).toBeGreaterThan(0);
  });
});

/** A recorded POST with exactly these headers (rawPost adds the standard ones). */
async function fetchRecorded(s: Stack, headers: Record<string, string>, body: Json): Promise<Response> {
  return recording(s)(s.h.mcpUrl, {
    method: 'POST',
    headers: { authorization: `Bearer ${s.access}`, ...headers },
    body: JSON.stringify(body),
  });
}
