import { describe, expect, it } from 'vitest';
import { textOf } from '../../helpers/harness.js';
import { mcpBehaviourFixture } from '../../helpers/mcp-behaviour.js';
import { callTool, untilEnded } from '../../helpers/tasks.js';

/**
 * Reuse hands back only work that can still give the caller what it asked: running or completed. An
 * agent run that was cancelled (cancel_agent_run, or upstream by anyone) or failed is never the answer
 * to the model's retry of the same call: the retry starts a new run.
 */
const fx = mcpBehaviourFixture();
const { session, record } = fx;

const ARGS = { question: 'Did the parade happen?' };

describe('a retry after a failed or cancelled run', () => {
  it('after cancel_agent_run, the same start_agent_run starts a new run', async () => {
    const { upstreamToken, client } = await session();
    await fx.h.control('PATCH', `/credentials/${upstreamToken}`, { speed: 'demo' });
    await fx.h.control('POST', '/clock', { freeze: true });
    try {
      const first = await client.callTool({ name: 'start_agent_run', arguments: ARGS });
      const runId = first.structuredContent.id as string;
      expect(first.structuredContent.completed).toBe(false);
      const cancelled = await client.callTool({ name: 'cancel_agent_run', arguments: { run_id: runId } });
      expect(cancelled.isError).toBeFalsy();
      const again = await client.callTool({ name: 'start_agent_run', arguments: ARGS });
      expect(again.isError).toBeFalsy();
      expect(textOf(again)).not.toContain('Same arguments as');
      expect(again.structuredContent.id).not.toBe(runId);
      expect((await record(upstreamToken)).runs).toHaveLength(2);
    } finally {
      await client.close();
    }
  });

  it('a run cancelled upstream by someone else while nobody looked is not handed back', async () => {
    const { upstreamToken, client } = await session();
    await fx.h.control('PATCH', `/credentials/${upstreamToken}`, { speed: 'demo' });
    await fx.h.control('POST', '/clock', { freeze: true });
    try {
      const first = await client.callTool({ name: 'start_agent_run', arguments: ARGS });
      const runId = first.structuredContent.id as string;
      // Cancelled straight at the upstream (its web app, another client): this server never saw it.
      const res = await fetch(`${fx.h.sandbox.agentUrl}/api/v1/runs/${runId}/cancel`, {
        method: 'POST',
        headers: { 'X-SERVICE-TOKEN': upstreamToken, 'X-SERVICE-USER-ID': 'analyst-1' },
      });
      expect(res.status).toBe(200);
      const again = await client.callTool({ name: 'start_agent_run', arguments: ARGS });
      expect(again.isError).toBeFalsy();
      expect(again.structuredContent.id).not.toBe(runId);
      expect(again.structuredContent.status).not.toBe('failed');
      expect(textOf(again)).toContain(`agent run ${runId} had ended failed`);
      expect((await record(upstreamToken)).runs).toHaveLength(2);
    } finally {
      await client.close();
    }
  });

  it('a task never hands back a reused run that had failed: it says so, and the next call starts anew', async () => {
    const { upstreamToken, client } = await session();
    const access = await fx.h.token({ upstreamToken });
    await fx.h.control('PATCH', `/credentials/${upstreamToken}`, { speed: 'demo' });
    await fx.h.control('POST', '/clock', { freeze: true });
    try {
      const first = await client.callTool({ name: 'start_agent_run', arguments: ARGS });
      const runId = first.structuredContent.id as string;
      // Cancelled straight at the upstream while nobody looked: the reuse record still names it.
      const res = await fetch(`${fx.h.sandbox.agentUrl}/api/v1/runs/${runId}/cancel`, {
        method: 'POST',
        headers: { 'X-SERVICE-TOKEN': upstreamToken, 'X-SERVICE-USER-ID': 'analyst-1' },
      });
      expect(res.status).toBe(200);
      const created = await callTool(fx.h.mcpUrl, access, 'start_agent_run', ARGS);
      const taskId = created.message.result.taskId as string;
      expect(taskId).toBeTruthy();
      const ended = JSON.stringify(await untilEnded(fx.h.mcpUrl, access, taskId));
      expect(ended).toContain(
        `The identical agent run ${runId} this call was answered with had ended failed`,
      );
      expect(ended).toContain('Call start_agent_run again with the same arguments to start a new one.');
      const again = await client.callTool({ name: 'start_agent_run', arguments: ARGS });
      expect(again.structuredContent.id).not.toBe(runId);
      expect(textOf(again)).not.toContain('Same arguments as');
      expect((await record(upstreamToken)).runs).toHaveLength(2);
    } finally {
      await client.close();
    }
  });
});
