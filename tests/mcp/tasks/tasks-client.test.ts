import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  createTaskSessionFromClient,
  type RawClientDispatch,
  resultFromTaskOutcome,
} from '@modelcontextprotocol/ext-tasks/client';
import { afterEach, describe, expect, it } from 'vitest';
import type { Json } from '../../helpers/harness.js';
import { mcpBehaviourFixture } from '../../helpers/mcp-behaviour.js';

/**
 * The tasks extension through its own client package (`@modelcontextprotocol/ext-tasks`, the requester
 * API, over the v2 SDK client): it finds the extension in server/discover, declares it on its calls,
 * drives tasks/get at the poll interval the server gives, and hands back the tool result. The package
 * has no transport of its own for the 2026-07-28 task wire: `rawDispatch` below posts its requests
 * with the standard headers (Mcp-Name names the tool or the task), as its README asks of a host.
 */
const fx = mcpBehaviourFixture();

const WORK = [
  ['submit_keyword_search', { query: 'heat pumps', platforms: ['twitter'] }],
  ['submit_user_search', { query: 'heatpumpfan', platform: 'twitter' }],
  ['submit_expert_search', { query: 'heat pump engineers' }],
  ['start_agent_run', { question: 'Are heat pumps trending?' }],
] as const;

let close: (() => Promise<void>) | null = null;
afterEach(async () => {
  await close?.();
  close = null;
});

/** A v2 client connected with a fresh credential, and a task session over it. */
async function session() {
  const upstreamToken = await fx.h.credential({ speed: 'demo', producer: true });
  const access = await fx.h.token({ upstreamToken });
  const client = new Client({ name: 'tasks-client', version: '1' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(fx.h.mcpUrl), {
      requestInit: { headers: { authorization: `Bearer ${access}` } },
    }),
  );
  let id = 0;
  const rawDispatch: RawClientDispatch = async (request) => {
    const message = request as { method: string; params: Json };
    const name = message.method === 'tools/call' ? message.params.name : message.params.taskId;
    const res = await fetch(fx.h.mcpUrl, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${access}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': message.method,
        'mcp-name': name,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++id, ...message }),
    });
    const answer = JSON.parse(await res.text());
    return answer.error ? { kind: 'error', error: answer.error } : { kind: 'result', result: answer.result };
  };
  const tasks = createTaskSessionFromClient(client, {
    endpointId: 'social-intel-mcp-test',
    rawDispatch,
    v2RequestFraming: {
      protocolVersion: '2026-07-28',
      clientInfo: { name: 'tasks-client', version: '1' },
      clientCapabilities: {},
    },
  });
  close = async () => {
    await tasks.close();
    await client.close();
  };
  return { upstreamToken, tasks };
}

describe('the extension client package', () => {
  it.each(WORK)('%s: a task, polled to the tool result', async (name, args) => {
    const { tasks } = await session();
    await fx.h.control('POST', '/clock', { freeze: true });
    const execution = await tasks.callTool(name, args as Json);
    expect(execution.kind).toBe('task');
    await fx.h.control('POST', '/clock', { advance_ms: 60_000 });
    const { outcome, lastTask } = await execution.settle();
    expect(outcome.status).toBe('completed');
    const result = resultFromTaskOutcome(outcome) as Json;
    expect(result.structuredContent.completed).toBe(true);
    expect(result.isError).toBeUndefined();
    expect(lastTask?.status).toBe('completed');
  });

  it('cancelling an agent run through it cancels the run upstream', async () => {
    const { tasks, upstreamToken } = await session();
    await fx.h.control('POST', '/clock', { freeze: true });
    const execution = await tasks.callTool('start_agent_run', { question: 'Cancel me?' });
    expect(execution.kind).toBe('task');
    await execution.cancel();
    const { outcome } = await execution.settle();
    expect(outcome.status).toBe('cancelled');
    expect((await fx.record(upstreamToken)).runs[0].status).toBe('failed');
  });
});
