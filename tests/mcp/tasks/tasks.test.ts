import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { saveUpstreamCredential } from '../../../src/accounts/credentials.js';
import { acceptInvite, createInvite } from '../../../src/teams/invites.js';
import { removeMember } from '../../../src/teams/members.js';
import { createTeam } from '../../../src/teams/teams.js';
import { grantThroughCode, issueTestToken } from '../../helpers/grants.js';
import { type Harness, type Json, startHarness } from '../../helpers/harness.js';
import { mcpBehaviourFixture } from '../../helpers/mcp-behaviour.js';
import { callTool, getTask, rpc, untilEnded } from '../../helpers/tasks.js';
import { ok } from '../../helpers/team-fixture.js';

/**
 * The tasks extension (SEP-2663) over raw 2026-07-28 requests, on this run's engine: every waiting tool
 * answers a request declaring the extension with a task at once (the sandbox's clock is frozen, so the
 * work cannot have ended), which tasks/get reports working and then completed; a request that does not
 * declare it gets the tool's result; a refused or failing start is a tool error, not a task; cancel,
 * update and the removed tasks/result; and a task is its creator's alone (person, app and workspace).
 */
const fx = mcpBehaviourFixture();
const { record, requests } = fx;

const WORK = [
  ['submit_keyword_search', { query: 'heat pumps', platforms: ['twitter'] }, 'keyword_search'],
  ['submit_user_search', { query: 'heatpumpfan', platform: 'twitter' }, 'user_search'],
  ['submit_expert_search', { query: 'heat pump engineers' }, 'expert_search'],
  ['start_agent_run', { question: 'Are heat pumps trending?' }, 'run'],
] as const;

async function person(speed: 'demo' | 'instant' = 'demo', credits = 100) {
  const upstreamToken = await fx.h.credential({ speed, credits, producer: true });
  const access = await fx.h.token({ upstreamToken });
  return { upstreamToken, access };
}

describe('a request that declares the tasks extension', () => {
  it('server/discover states the extension', async () => {
    const { access } = await person();
    const { message } = await rpc(fx.h.mcpUrl, access, 'server/discover', {});
    expect(message.result.capabilities.extensions).toMatchObject({ 'io.modelcontextprotocol/tasks': {} });
  });

  it.each(WORK)(
    '%s answers a task at once, working, then completed with the tool result',
    async (name, args) => {
      const { access, upstreamToken } = await person();
      await fx.h.control('POST', '/clock', { freeze: true });
      const created = await callTool(fx.h.mcpUrl, access, name, args);
      expect(created.status).toBe(200);
      const task = created.message.result;
      expect(task).toMatchObject({ resultType: 'task', status: 'working' });
      expect(task.taskId).toMatch(/^sim_tk_[\w-]{43}$/);
      expect(task.statusMessage).toMatch(/created$/);
      expect(task.ttlMs).toBeGreaterThan(24 * 3_600_000);
      expect(new Date(task.createdAt).toISOString()).toBe(task.createdAt);
      const working = (await getTask(fx.h.mcpUrl, access, task.taskId)).message.result;
      expect(working).toMatchObject({ resultType: 'complete', status: 'working', taskId: task.taskId });
      expect(working.pollIntervalMs).toBeGreaterThanOrEqual(1_000);
      await fx.h.control('POST', '/clock', { advance_ms: 60_000 });
      const done = await untilEnded(fx.h.mcpUrl, access, task.taskId);
      expect(done.status).toBe('completed');
      expect(done.pollIntervalMs).toBeUndefined();
      expect(done.result).toMatchObject({ resultType: 'complete', structuredContent: { completed: true } });
      expect(done.result.isError).toBeUndefined();
      // One creation upstream, and nothing cancelled.
      const posts = (await requests(upstreamToken)).filter((r) => r.method === 'POST');
      expect(posts).toHaveLength(1);
    },
  );

  it('a task answer says how its platform words were read, as the call answer does', async () => {
    const { access } = await person();
    await fx.h.control('POST', '/clock', { freeze: true });
    const created = await callTool(fx.h.mcpUrl, access, 'submit_keyword_search', {
      query: 'heat pumps',
      platforms: ['X', 'reddit'],
    });
    const task = created.message.result;
    expect(task).toMatchObject({ resultType: 'task', status: 'working' });
    await fx.h.control('POST', '/clock', { advance_ms: 60_000 });
    const done = await untilEnded(fx.h.mcpUrl, access, task.taskId);
    const text: string = done.result.content[0].text;
    expect(text.startsWith(`"X" was read as twitter (the upstream's name for X).\n`), text).toBe(true);
    expect(text.match(/was read as twitter/g)).toHaveLength(1);
  });

  it('a refused or failing start is a tool error at once, not a task: bad arguments, 402', async () => {
    const { access } = await person('demo', 0);
    const invalid = await callTool(fx.h.mcpUrl, access, 'submit_keyword_search', { query: '' });
    expect(invalid.message.result).toMatchObject({ isError: true, resultType: 'complete' });
    expect(invalid.message.result.content[0].text).toMatch(/^Invalid arguments/);
    const broke = await callTool(fx.h.mcpUrl, access, 'start_agent_run', { question: 'Spend?' });
    expect(broke.message.result).toMatchObject({ isError: true, resultType: 'complete' });
    expect(broke.message.result.content[0].text).toMatch(/Out of credits \(402\)/);
    expect(broke.message.result.taskId).toBeUndefined();
  });

  it('a tool that does not wait is answered as always', async () => {
    const { access } = await person();
    const { message } = await callTool(fx.h.mcpUrl, access, 'usage', {});
    expect(message.result.resultType).toBe('complete');
    expect(message.result.structuredContent).toBeTruthy();
  });
});

describe('a request that does not declare the extension', () => {
  it('gets the tool result, never a task (the extension is per request)', async () => {
    const { access } = await person();
    await fx.h.control('POST', '/clock', { freeze: true });
    const plain = await callTool(
      fx.h.mcpUrl,
      access,
      'start_agent_run',
      { question: 'No tasks here?' },
      false,
    );
    expect(plain.message.result.resultType).toBe('complete');
    expect(plain.message.result.structuredContent).toMatchObject({ completed: false });
  });

  it('tasks/get, tasks/update and tasks/cancel without the declaration: -32021, the task untouched', async () => {
    const { access, upstreamToken } = await person();
    await fx.h.control('POST', '/clock', { freeze: true });
    const { taskId } = (await callTool(fx.h.mcpUrl, access, 'start_agent_run', { question: 'Mine?' })).message
      .result;
    // SEP-2663: the methods belong to the extension; a request that did not declare it is refused with
    // the missing capability named (-32021, HTTP 400), whoever sends it, the owner included.
    const missing = {
      code: -32021,
      message: expect.any(String),
      data: { requiredCapabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } } },
    };
    for (const [method, params] of [
      ['tasks/get', { taskId }],
      ['tasks/update', { taskId, inputResponses: {} }],
      ['tasks/cancel', { taskId }],
    ] as const) {
      const answer = await rpc(fx.h.mcpUrl, access, method, params, { declareTasks: false });
      expect(answer.status, method).toBe(400);
      expect(answer.message.error, method).toEqual(missing);
      expect(answer.message.result, method).toBeUndefined();
    }
    expect((await getTask(fx.h.mcpUrl, access, taskId)).message.result.status).toBe('working');
    expect((await requests(upstreamToken)).some((r) => r.path.endsWith('/cancel'))).toBe(false);
  });
});

describe('tasks/cancel, tasks/update and tasks/result', () => {
  it('cancelling a run cancels it upstream; the task ends cancelled', async () => {
    const { access, upstreamToken } = await person();
    await fx.h.control('POST', '/clock', { freeze: true });
    const { taskId } = (await callTool(fx.h.mcpUrl, access, 'start_agent_run', { question: 'Stop me?' }))
      .message.result;
    const ack = await rpc(fx.h.mcpUrl, access, 'tasks/cancel', { taskId });
    expect(ack.message.result).toEqual({ resultType: 'complete', _meta: expect.any(Object) });
    const task = (await getTask(fx.h.mcpUrl, access, taskId)).message.result;
    expect(task.status).toBe('cancelled');
    expect(task.statusMessage).toMatch(/was cancelled upstream/);
    expect((await record(upstreamToken)).runs[0].status).toBe('failed');
    expect(
      (await requests(upstreamToken)).some((r) => r.method === 'POST' && r.path.endsWith('/cancel')),
    ).toBe(true);
  });

  it('cancelling a search ends the task; the search keeps running and stays readable', async () => {
    const { access, upstreamToken } = await person();
    await fx.h.control('POST', '/clock', { freeze: true });
    const { taskId } = (await callTool(fx.h.mcpUrl, access, 'submit_keyword_search', { query: 'keep going' }))
      .message.result;
    await rpc(fx.h.mcpUrl, access, 'tasks/cancel', { taskId });
    const task = (await getTask(fx.h.mcpUrl, access, taskId)).message.result;
    expect(task.status).toBe('cancelled');
    const id = (await record(upstreamToken)).searches.keyword[0].id;
    expect(task.statusMessage).toContain(`get_keyword_search (search_id ${id})`);
    await fx.h.control('POST', '/clock', { advance_ms: 60_000 });
    const read = await callTool(fx.h.mcpUrl, access, 'get_keyword_search', { search_id: id }, false);
    expect(read.message.result.structuredContent).toMatchObject({ search_id: id, completed: true });
  });

  it('tasks/update acknowledges; tasks/result is gone (-32601); an unknown id is -32602', async () => {
    const { access } = await person('instant');
    const { taskId } = (await callTool(fx.h.mcpUrl, access, 'submit_expert_search', { query: 'x' })).message
      .result;
    const update = await rpc(fx.h.mcpUrl, access, 'tasks/update', { taskId, inputResponses: {} });
    expect(update.message.result.resultType).toBe('complete');
    expect((await rpc(fx.h.mcpUrl, access, 'tasks/result', { taskId })).message.error.code).toBe(-32601);
    const unknown = await getTask(fx.h.mcpUrl, access, 'sim_tk_no-such-task');
    expect(unknown.message.error).toEqual({
      code: -32602,
      message: 'Failed to retrieve task: Task not found',
    });
  });
});

describe('a view of /mcp narrows the tools shown, not who owns a task', () => {
  it('a task made through one view is read and cancelled through another by its owner', async () => {
    const { access, upstreamToken } = await person();
    await fx.h.control('POST', '/clock', { freeze: true });
    const made = await callTool(`${fx.h.mcpUrl}?toolsets=agent_runs`, access, 'start_agent_run', {
      question: 'Seen from elsewhere?',
    });
    const { taskId } = made.message.result;
    // Neither view offers start_agent_run, and read-only refuses every tool that writes.
    const seen = await rpc(`${fx.h.mcpUrl}?toolsets=experts`, access, 'tasks/get', { taskId });
    expect(seen.message.result).toMatchObject({ taskId, status: 'working' });
    const stopped = await rpc(`${fx.h.mcpUrl}/readonly`, access, 'tasks/cancel', { taskId });
    expect(stopped.message.result.resultType).toBe('complete');
    expect((await getTask(fx.h.mcpUrl, access, taskId)).message.result.status).toBe('cancelled');
    expect((await record(upstreamToken)).runs[0].status).toBe('failed');
  });
});

/** An access token for this user in this workspace through another app (client id). */
async function grantFor(userId: string, workspaceId: string, clientId: string): Promise<string> {
  return (await grantThroughCode(fx.h.server, { userId, workspaceId, clientId })).access_token;
}

describe('a task belongs to the person, the app and the workspace that created it', () => {
  it('every other caller gets the same answer as for an unknown id; reads and cancels are audited', async () => {
    const { db, secrets } = fx.h.server;
    const upstreamToken = await fx.h.credential({ speed: 'demo' });
    const owner = await issueTestToken(fx.h.server, { upstreamToken, upstreamUserId: 'analyst-1' });
    await fx.h.control('POST', '/clock', { freeze: true });
    const { taskId } = (
      await callTool(fx.h.mcpUrl, owner.accessToken, 'start_agent_run', { question: 'Whose?' })
    ).message.result;

    // Another person; the same person through another app; the same person in another workspace; the
    // upstream user itself, through the upstream headers.
    const someoneElse = await issueTestToken(fx.h.server, { upstreamToken, upstreamUserId: 'analyst-1' });
    const otherApp = await grantFor(owner.userId, owner.workspaceId, 'another-app');
    const teamId = ok(await createTeam(db, owner.userId, 'Second Workspace'));
    await saveUpstreamCredential(db, secrets, {
      workspaceId: teamId,
      linkedBy: owner.userId,
      token: upstreamToken,
      upstreamUserId: 'analyst-1',
      verifiedAt: Date.now(),
    });
    const otherWorkspace = await grantFor(owner.userId, teamId, owner.clientId);
    const headers = { 'x-service-token': upstreamToken, 'x-service-user-id': 'analyst-1' };
    const NOT_FOUND = { code: -32602, message: 'Failed to retrieve task: Task not found' };
    for (const [label, access, extra] of [
      ['another person', someoneElse.accessToken, {}],
      ['another app', otherApp, {}],
      ['another workspace', otherWorkspace, {}],
      ['the upstream headers', '', headers],
    ] as const) {
      for (const method of ['tasks/get', 'tasks/cancel', 'tasks/update']) {
        const { message } = await rpc(fx.h.mcpUrl, access, method, { taskId }, { headers: extra });
        expect(message.error, `${label} ${method}`).toEqual(NOT_FOUND);
      }
    }
    // A member removed from a workspace is refused before any task is looked at: their grant ended.
    const invite = ok(
      await createInvite(db, teamId, owner.userId, { role: 'member', maxUses: '1', expiresInDays: '1' }),
    );
    ok(await acceptInvite(db, invite.token, teamId, someoneElse.userId));
    const inTeam = await grantFor(someoneElse.userId, teamId, owner.clientId);
    ok(await removeMember(db, teamId, owner.userId, someoneElse.userId));
    expect((await getTask(fx.h.mcpUrl, inTeam, taskId)).status).toBe(401);

    // The task is untouched, and still its owner's.
    expect((await getTask(fx.h.mcpUrl, owner.accessToken, taskId)).message.result.status).toBe('working');
    // Task requests' rows are written in batches, a quarter of a second late at most.
    const audited = await fx.until(
      () => db.orm.select().from(db.t.auditEvents).where(eq(db.t.auditEvents.userId, owner.userId)),
      (rows) => rows.filter((a) => a.tool === 'tasks/get' && a.status === 'ok').length >= 1,
    );
    const statuses = audited.filter((a) => a.tool?.startsWith('tasks/')).map((a) => `${a.tool} ${a.status}`);
    expect(statuses).toContain('tasks/get ok');
    expect(statuses).toContain('tasks/get not_found');
    expect(statuses).toContain('tasks/cancel not_found');
  });
});

describe('many pollers cost little', () => {
  let slow: Harness;
  beforeAll(async () => {
    // Polls upstream once a minute: within this test, any read of the job would come from tasks/get.
    // A task's repeated reads are counted in windows of half a second (a minute in production).
    slow = await startHarness({ pollInitialMs: 60_000, pollMaxMs: 60_000, taskReadWindowMs: 500 });
  });
  afterAll(async () => {
    await slow?.close();
  });

  it('tasks/get of a working task makes no upstream call, and says when to poll again', async () => {
    const upstreamToken = await slow.credential({ speed: 'demo' });
    const access = await slow.token({ upstreamToken });
    const { taskId } = (await callTool(slow.mcpUrl, access, 'start_agent_run', { question: 'Quiet?' }))
      .message.result;
    const answers = await Promise.all(Array.from({ length: 20 }, () => getTask(slow.mcpUrl, access, taskId)));
    for (const { message } of answers) {
      expect(message.result.status).toBe('working');
      // The job's next read upstream is a minute away: clients are told the longest interval.
      expect(message.result.pollIntervalMs).toBe(10_000);
    }
    const log = (await slow.control('GET', `/credentials/${upstreamToken}/requests`)).requests as Json[];
    expect(log.map((r) => r.method)).toEqual(['POST']);
  });

  it('the audit trail accounts for every read of a task, in a few rows', async () => {
    const upstreamToken = await slow.credential({ speed: 'demo' });
    const access = await slow.token({ upstreamToken });
    // Rows of this test's reads only: every read of the test before ended before this.
    const since = Date.now();
    const { taskId } = (await callTool(slow.mcpUrl, access, 'start_agent_run', { question: 'Counted?' }))
      .message.result;
    const READS = 30;
    for (let i = 0; i < READS / 10; i++)
      await Promise.all(Array.from({ length: 10 }, () => getTask(slow.mcpUrl, access, taskId)));
    const { db } = slow.server;
    const readRows = async () =>
      (await db.orm.select().from(db.t.auditEvents).where(eq(db.t.auditEvents.tool, 'tasks/get'))).filter(
        (a) => a.status === 'ok' && a.at >= since,
      );
    const readsIn = (rows: Array<{ detail: string | null }>) =>
      rows.reduce((n, a) => n + ((JSON.parse(a.detail ?? '{}') as { reads?: number }).reads ?? 1), 0);
    // The last window's count is written when it ends, and its batch a quarter of a second later.
    const rows = await fx.until(readRows, (r) => readsIn(r) >= READS, 5_000);
    expect(readsIn(rows)).toBe(READS);
    // Each window: its first read's row and one row of the rest.
    expect(rows.length).toBeLessThanOrEqual(READS / 3);
    expect(rows.some((a) => (JSON.parse(a.detail ?? '{}') as { reads?: number }).reads)).toBe(true);
  });
});
