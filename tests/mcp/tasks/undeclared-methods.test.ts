import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BypassMode } from '../../../src/mcp/sdk-bypass/paths.js';
import { type Harness, type Json, startHarness } from '../../helpers/harness.js';
import { callTool, getTask, rpc } from '../../helpers/tasks.js';

/**
 * tasks/get, tasks/update and tasks/cancel in a request that does not declare the tasks extension, on
 * every serving path of the hosted server: 2026-07-28 requests with the bypass on (`full`, where a
 * declaring tasks/get is answered outside the SDK) and off (the SDK alone), and 2025-era requests
 * (2025-11-25, 2025-06-18), which have no per-request capabilities and so never declare it. Each is
 * refused with -32021 naming the extension (SEP-2663 "Capability Negotiation", SEP-2575 "Missing
 * Required Capabilities"; the conformance suite's `sep-2663-tasks-methods-non-declaring`), and the
 * task it names is neither read nor changed. The stdio server keeps no tasks: tests/stdio/tasks-methods.
 */
const METHODS = [
  ['tasks/get', {}],
  ['tasks/update', { inputResponses: {} }],
  ['tasks/cancel', {}],
] as const;

const MISSING = {
  code: -32021,
  message: expect.any(String),
  data: { requiredCapabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } } },
};

/** A 2025-era request (no envelope: the era has no per-request capabilities) and its JSON-RPC answer. */
async function legacy(url: string, access: string, version: string, method: string, params: Json) {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${access}`,
      'mcp-protocol-version': version,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params }),
  });
  const text = await res.text();
  return { status: res.status, message: JSON.parse(/^data: (.*)$/m.exec(text)?.[1] ?? text) as Json };
}

describe.each(['full', 'off'] as BypassMode[])('with the SDK bypass %s', (mode) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ sdkBypass: mode });
  });
  afterAll(async () => {
    await h?.close();
  });

  /** A working agent run's task (the sandbox's clock frozen), its owner's token and upstream credential. */
  async function workingTask() {
    const upstreamToken = await h.credential({ speed: 'demo', producer: true });
    const access = await h.token({ upstreamToken });
    await h.control('POST', '/clock', { freeze: true });
    const created = await callTool(h.mcpUrl, access, 'start_agent_run', { question: 'Whose task?' });
    expect(created.message.result.status).toBe('working');
    return { access, upstreamToken, taskId: created.message.result.taskId as string };
  }

  /** The task still working for its owner, and no cancel sent upstream. */
  async function untouched(task: { access: string; upstreamToken: string; taskId: string }) {
    expect((await getTask(h.mcpUrl, task.access, task.taskId)).message.result.status).toBe('working');
    const log = (await h.control('GET', `/credentials/${task.upstreamToken}/requests`)).requests as Json[];
    expect(log.some((r) => r.path.endsWith('/cancel'))).toBe(false);
  }

  it('2026-07-28 without the declaration: -32021 (HTTP 400) for the owner’s task and for an unknown id', async () => {
    const task = await workingTask();
    for (const taskId of [task.taskId, 'gate-test']) {
      for (const [method, extra] of METHODS) {
        const answer = await rpc(
          h.mcpUrl,
          task.access,
          method,
          { taskId, ...extra },
          { declareTasks: false },
        );
        expect(answer.status, `${method} ${taskId}`).toBe(400);
        expect(answer.message.error, `${method} ${taskId}`).toEqual(MISSING);
        expect(answer.message.result, method).toBeUndefined();
      }
    }
    await untouched(task);
  });

  it.each(['2025-11-25', '2025-06-18'])(
    '%s requests (no per-request capabilities): -32021 for the owner’s task',
    async (version) => {
      const task = await workingTask();
      for (const [method, extra] of METHODS) {
        const answer = await legacy(h.mcpUrl, task.access, version, method, {
          taskId: task.taskId,
          ...extra,
        });
        // The 2025-era transport carries a JSON-RPC error in a 200 response (its stream's one message).
        expect(answer.status, method).toBe(200);
        expect(answer.message.error, method).toEqual(MISSING);
        expect(answer.message.result, method).toBeUndefined();
      }
      await untouched(task);
    },
  );
});
