/**
 * Failover: two server processes on one PostgreSQL database behind a round-robin balancer, and one of
 * them stopped (SIGTERM, as a deploy stops it, or SIGKILL, as a crash does) while its work is under
 * way. A task's background work is taken over by the other instance once the stopped one's lease is
 * given up (SIGTERM) or runs out (SIGKILL; TASK_LEASE_SECONDS=1 here) and completes there. A plain
 * (non-tasks) client's waiting submit is answered at once with the id and the next call on SIGTERM, or
 * loses its connection on SIGKILL; either way, the same submit sent again reaches the other instance
 * and is answered with that same work. Upstream, exactly one run is created and none is cancelled. The
 * sandbox's clock is frozen, so the run can only finish after the stop. PostgreSQL by nature.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Gateway } from '../helpers/gateway.js';
import { issueTestToken } from '../helpers/grants.js';
import type { Json } from '../helpers/harness.js';
import { callTool, untilEnded } from '../helpers/tasks.js';
import { postMcp, startTwoInstances, type TwoInstances } from '../helpers/two-instances.js';

let two: TwoInstances;

beforeAll(async () => {
  two = await startTwoInstances({ TASK_LEASE_SECONDS: '1', RUN_MAX_WAIT_SECONDS: '10' });
});

afterAll(async () => {
  await two?.close();
});

afterEach(async () => {
  two.proxy.pin(null);
  await two.sandbox.control('POST', '/clock', { freeze: false });
});

/** A fresh upstream credential (its own count of work created) and a token for it. */
async function person() {
  const upstreamToken = await two.sandbox.credential({ speed: 'demo' });
  const { accessToken } = await issueTestToken(two.view, { upstreamToken });
  return { upstreamToken, accessToken };
}

/** What upstream saw of a credential: the work it created, its runs, whether anything was cancelled. */
async function upstream(token: string) {
  const creates = (await two.sandbox.control('GET', `/credentials/${token}/creates`)).body as {
    total: number;
  };
  const record = (await two.sandbox.control('GET', `/credentials/${token}`)).body as {
    runs: Array<{ id: string; status: string }>;
  };
  const requests = (await two.sandbox.control('GET', `/credentials/${token}/requests`)).body
    .requests as Array<{
    path: string;
  }>;
  return {
    created: creates.total,
    runs: record.runs,
    cancelled: requests.some((r) => r.path.endsWith('/cancel')),
    // A run's status read: its create's answer is recorded, and the call waits on it.
    polled: requests.some((r) => record.runs.some((run) => r.path.endsWith(run.id))),
  };
}

/** Stops instance 0 with `signal` and waits for its exit; sends everything to instance 1 from then on. */
async function stopFirst(signal: 'SIGTERM' | 'SIGKILL') {
  const victim = two.instances[0] as Gateway;
  victim.proc.kill(signal);
  const exit = await victim.proc.exit();
  two.proxy.pin(1);
  return exit;
}

/** A plain 2025-06-18 start_agent_run (no tasks extension: the call waits), its JSON-RPC answer. */
async function submit(accessToken: string, question: string) {
  const res = await postMcp(two.proxy.url, accessToken, {
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'start_agent_run', arguments: { question } },
  });
  const text = await res.text();
  return JSON.parse(/^data: (.*)$/m.exec(text)?.[1] ?? text) as Json;
}

/** Polls `read` until `ok` holds (each poll is a real read; the bound only ends a test that failed). */
async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (ok(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.each(['SIGTERM', 'SIGKILL'] as const)('one instance stopped by %s', (signal) => {
  it('during a task: the other instance takes the task over and completes it', async () => {
    const { upstreamToken, accessToken } = await person();
    const url = `${two.proxy.url}/mcp`;
    await two.sandbox.control('POST', '/clock', { freeze: true });
    two.proxy.pin(0);
    const created = await callTool(url, accessToken, 'start_agent_run', {
      question: `Still there after ${signal}?`,
    });
    const { taskId } = created.message.result;
    expect(created.message.result.status).toBe('working');

    const exit = await stopFirst(signal);
    expect(signal === 'SIGTERM' ? exit.code : exit.signal).toBe(signal === 'SIGTERM' ? 0 : 'SIGKILL');
    // The run finishes upstream while its instance is gone.
    await two.sandbox.advance(60_000);
    const done = await untilEnded(url, accessToken, taskId, 30_000);
    expect(done.status).toBe('completed');
    expect(done.result.structuredContent).toMatchObject({ completed: true, status: 'completed' });
    expect(await upstream(upstreamToken)).toMatchObject({ created: 1, cancelled: false });
    await two.replace(0);
  });

  it('during a waiting submit: the same submit again finds that run through the other instance, no second create', async () => {
    const { upstreamToken, accessToken } = await person();
    const question = `Who answers after ${signal}?`;
    await two.sandbox.control('POST', '/clock', { freeze: true });
    two.proxy.pin(0);
    const waiting = submit(accessToken, question).catch((error: Error) => ({ lost: error.message }));
    // The run exists upstream and the call waits on it (a stop before its create's answer is recorded
    // is another case: the next submit is then told the run is still being created).
    const seen = await until(
      () => upstream(upstreamToken),
      (u) => u.created === 1 && u.polled,
    );
    expect(seen).toMatchObject({ created: 1, polled: true });
    const run = seen.runs[0] as { id: string };

    await stopFirst(signal);
    const first = await waiting;
    if (signal === 'SIGTERM') {
      // A graceful stop ends the wait at once: the answer names the run and the call that reads it.
      const text = first.result.content[0].text as string;
      expect(first.result.isError).toBeUndefined();
      expect(text).toContain(run.id);
      expect(text).toContain('get_agent_run');
    } else {
      // A crash leaves the client without an answer (its connection closed, or an empty body).
      expect(first.result?.structuredContent?.completed).not.toBe(true);
    }

    await two.sandbox.advance(60_000);
    const again = await submit(accessToken, question);
    const text = again.result.content[0].text as string;
    expect(text).toContain(`Same arguments as agent run ${run.id}`);
    expect(again.result.structuredContent).toMatchObject({ completed: true, status: 'completed' });
    expect(await upstream(upstreamToken)).toMatchObject({ created: 1, cancelled: false });
    await two.replace(0);
  });
});
