import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Json } from '../../helpers/harness.js';
import { callTool, envelope, getTask, rpc, untilEnded } from '../../helpers/tasks.js';
import { IGNORED, type Stack, stack, UUID, until } from './wire-stacks.js';

/**
 * What a task answers, against what the same request answers otherwise, on stacks whose sandbox clocks
 * are frozen at the same instant and stepped the same way:
 *
 * - a completed task's `result` is exactly the synchronous call's result, for every waiting tool (one
 *   stack answers the call, the other a task for it: same shaping, size cap, links, structured content);
 * - a plain tasks/get answered outside the SDK (src/mcp/sdk-bypass/task-call.ts) is byte for byte what the SDK's
 *   per-request server answers with src/mcp/tasks/sdk-methods.ts (`sdkBypass: 'off'`), for a working task, a
 *   completed one, and an unknown id; the times and ids that differ between two servers aside.
 */
let sync: Stack;
let task: Stack;
let direct: Stack;
let viaSdk: Stack;
beforeAll(async () => {
  sync = await stack({});
  task = await stack({});
  // Two stacks with the same history (search ids count up alike) for the byte comparison.
  direct = await stack({});
  viaSdk = await stack({ sdkBypass: 'off' });
});
afterAll(async () => {
  await Promise.all([sync, task, direct, viaSdk].map((s) => s?.h.close()));
});

const WORK = [
  ['submit_keyword_search', { query: 'heat pumps', platforms: ['twitter'] }, [2_000, 3_000]],
  ['submit_user_search', { query: 'heatpumpfan', platform: 'twitter' }, [2_000, 3_000]],
  ['submit_expert_search', { query: 'heat pump engineers' }, [1_000, 3_000]],
  ['start_agent_run', { question: 'Are heat pumps trending?' }, [3_000, 9_000, 9_000]],
] as const;

/** Reads of any job upstream so far (the sandbox's request log). */
async function polls(s: Stack): Promise<number> {
  const log = (await s.h.control('GET', `/credentials/${s.upstream}/requests`)).requests as Json[];
  return log.filter(
    (r) => r.method === 'GET' && /\/(keyword_search|user_search|search|runs)\/[\w-]+$/.test(r.path),
  ).length;
}

/** Moves the frozen clock by each step once the server has read the job twice since the last. */
async function stepThrough(s: Stack, steps: readonly number[]): Promise<void> {
  for (const ms of steps) {
    const seen = await polls(s);
    await until(async () => (await polls(s)) >= seen + 2, 'two polls');
    await s.h.control('POST', '/clock', { advance_ms: ms });
  }
}

describe('a completed task holds exactly the synchronous call result', () => {
  it.each(WORK)('%s', async (name, args, steps) => {
    const answered = callTool(sync.h.mcpUrl, sync.access, name, args, false);
    await stepThrough(sync, steps);
    const direct = (await answered).message.result;

    const created = (await callTool(task.h.mcpUrl, task.access, name, args)).message.result;
    expect(created.resultType).toBe('task');
    await stepThrough(task, steps);
    const done = await untilEnded(task.h.mcpUrl, task.access, created.taskId);
    expect(done.status).toBe('completed');
    const same = (v: Json) => JSON.parse(JSON.stringify(v).replace(UUID, '<uuid>'));
    expect(same(done.result)).toEqual(same(direct));
    expect(direct.structuredContent.completed).toBe(true);
  });
});

/** A recorded POST: status, headers and body, with what differs between two servers replaced. */
async function post(s: Stack, method: string, params: Json): Promise<Json> {
  const name = method === 'tools/call' ? params.name : params.taskId;
  const res = await fetch(s.h.mcpUrl, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${s.access}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      'mcp-name': name,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 9, method, params: { ...params, _meta: envelope(true) } }),
  });
  const body = (await res.text())
    .replace(UUID, '<uuid>')
    .replace(/sim_tk_[\w-]{43}/g, '<task>')
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g, '<time>')
    .replace(/"(ttlMs|pollIntervalMs)":\d+/g, '"$1":<ms>');
  return { status: res.status, headers: [...res.headers].filter(([k]) => !IGNORED.has(k)), body };
}

describe('tasks/get outside the SDK', () => {
  it('is the SDK answer byte for byte: working, completed, unknown', async () => {
    const scenario = async (s: Stack) => {
      const created = await callTool(s.h.mcpUrl, s.access, 'submit_keyword_search', {
        query: 'wire of tasks',
      });
      const { taskId } = created.message.result;
      // Once the job was read (its status text is then in the message), the same on both stacks.
      await until(async () => (await polls(s)) >= 1, 'a poll');
      const working = await post(s, 'tasks/get', { taskId });
      await stepThrough(s, [2_000, 3_000]);
      await untilEnded(s.h.mcpUrl, s.access, taskId);
      const completed = await post(s, 'tasks/get', { taskId });
      const unknown = await post(s, 'tasks/get', { taskId: 'sim_tk_unknown' });
      return { working, completed, unknown };
    };
    const ours = await scenario(direct);
    const theirs = await scenario(viaSdk);
    expect(ours).toEqual(theirs);
    expect(ours.working.body).toMatch(/^\{"result":\{"taskId":"<task>","status":"working"/);
    expect(ours.completed.body).toContain('"status":"completed"');
    expect(ours.unknown.body).toContain('"code":-32602');
  });

  it('leaves to the SDK what it does not answer itself: a wrong Mcp-Name, tasks/result', async () => {
    const created = await callTool(task.h.mcpUrl, task.access, 'submit_expert_search', { query: 'edges' });
    const { taskId } = created.message.result;
    const mismatch = await rpc(
      task.h.mcpUrl,
      task.access,
      'tasks/get',
      { taskId },
      { headers: { 'mcp-name': 'x' } },
    );
    expect(mismatch.status).toBe(400);
    expect(mismatch.message.error.code).toBe(-32020);
    expect((await rpc(task.h.mcpUrl, task.access, 'tasks/result', { taskId })).message.error.code).toBe(
      -32601,
    );
    expect((await getTask(task.h.mcpUrl, task.access, taskId)).message.result.taskId).toBe(taskId);
  });
});
