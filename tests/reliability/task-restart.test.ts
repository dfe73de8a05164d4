/**
 * Work survives a restart: the gateway process (src/main.ts, SQLite file) creates a task for an agent
 * run, or waits on one for a plain client, is stopped (SIGKILL or SIGTERM) while the run works, and a
 * new process on the same file carries on. It takes the task over once its lease was handed back
 * (SIGTERM) or lapsed (SIGKILL; TASK_LEASE_SECONDS=1) and settles it; tasks/get then answers
 * `completed` with the run's report. The same waiting submit sent again is answered with that run. The
 * sandbox is its own process and keeps the run going meanwhile; its clock is frozen, so the run can
 * only finish after the stop. Exactly one run upstream, never cancelled. Two instances on PostgreSQL:
 * failover.test.ts.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OpenStore, openSqliteStore } from '../../src/db/store/index.js';
import { asTestServer, freePort, type Gateway, spawnGateway } from '../helpers/gateway.js';
import { issueTestToken } from '../helpers/grants.js';
import type { Json } from '../helpers/harness.js';
import { openRawSql } from '../helpers/raw-sql.js';
import { type Sandbox, startSandbox } from '../helpers/sandbox-process.js';
import { callTool, getTask, untilEnded } from '../helpers/tasks.js';
import { tempDir } from '../helpers/temp.js';
import { postMcp } from '../helpers/two-instances.js';

const dir = tempDir('sim-task-restart-');
const databasePath = join(dir.path, 'tasks.db');
let sandbox: Sandbox;
let port: number;
let publicUrl: string;
let gateway: Gateway | null = null;
let db: OpenStore | null = null;

beforeAll(async () => {
  sandbox = await startSandbox();
  port = await freePort();
  publicUrl = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  await sandbox?.control('POST', '/clock', { freeze: false });
  gateway?.proc.kill('SIGKILL');
  await gateway?.proc.exit();
  await db?.close();
  await sandbox?.stop();
  dir.remove();
});

function start(): Promise<Gateway> {
  return spawnGateway({
    databasePath,
    publicUrl,
    port,
    env: {
      UPSTREAM_SEARCH_URL: sandbox.searchUrl,
      UPSTREAM_AGENT_URL: sandbox.agentUrl,
      TASK_LEASE_SECONDS: '1',
      RUN_MAX_WAIT_SECONDS: '10',
    },
  });
}

/** A fresh upstream credential and a token for it, on the running gateway's database. */
async function person() {
  db ??= openSqliteStore(databasePath);
  const location = { databasePath };
  const view = asTestServer(publicUrl, db, publicUrl, location, openRawSql(location));
  const upstreamToken = await sandbox.credential({ speed: 'demo' });
  const { accessToken } = await issueTestToken(view, { upstreamToken });
  return { upstreamToken, accessToken };
}

/** Stops the gateway with `signal`, waits for its exit, and lets the run finish upstream meanwhile. */
async function stopAndFinishUpstream(signal: 'SIGTERM' | 'SIGKILL') {
  gateway?.proc.kill(signal);
  await gateway?.proc.exit();
  gateway = null;
  await sandbox.advance(60_000);
}

/** What upstream saw of a credential: the work it created, whether anything was cancelled. */
async function upstream(token: string) {
  const creates = (await sandbox.control('GET', `/credentials/${token}/creates`)).body as { total: number };
  return { created: creates.total, cancelled: (await paths(token)).some((p) => p.endsWith('/cancel')) };
}

/** The paths of every request upstream saw with this credential. */
async function paths(token: string): Promise<string[]> {
  const requests = (await sandbox.control('GET', `/credentials/${token}/requests`)).body.requests as Array<{
    path: string;
  }>;
  return requests.map((r) => r.path);
}

/** Whether upstream has seen a run's status read: its create's answer is recorded and the call waits. */
const runPolled = async (token: string) => (await paths(token)).some((p) => /\/runs\/[0-9a-f-]{36}$/.test(p));

/** A plain 2025-06-18 start_agent_run (no tasks extension: the call waits), its JSON-RPC answer. */
async function submit(accessToken: string, question: string) {
  const res = await postMcp(publicUrl, accessToken, {
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'start_agent_run', arguments: { question } },
  });
  const text = await res.text();
  return JSON.parse(/^data: (.*)$/m.exec(text)?.[1] ?? text) as Json;
}

describe('a restart of the server', () => {
  it('a task created before a SIGTERM completes after the restart', async () => {
    gateway ??= await start();
    const { upstreamToken, accessToken } = await person();
    const mcp = `${publicUrl}/mcp`;
    await sandbox.control('POST', '/clock', { freeze: true });
    const { taskId } = (await callTool(mcp, accessToken, 'start_agent_run', { question: 'After a SIGTERM?' }))
      .message.result;
    await stopAndFinishUpstream('SIGTERM');
    gateway = await start();
    const done = await untilEnded(mcp, accessToken, taskId, 30_000);
    expect(done.status).toBe('completed');
    expect(done.result.structuredContent).toMatchObject({ completed: true, status: 'completed' });
    expect(await upstream(upstreamToken)).toEqual({ created: 1, cancelled: false });
  });

  it.each(['SIGTERM', 'SIGKILL'] as const)(
    'a waiting submit stopped by %s: after the restart the same submit answers with that run',
    async (signal) => {
      gateway ??= await start();
      const { upstreamToken, accessToken } = await person();
      const question = `Still the same run after ${signal}?`;
      await sandbox.control('POST', '/clock', { freeze: true });
      const waiting = submit(accessToken, question).catch((error: Error) => ({ lost: error.message }));
      // Stopped while it waits: its create's answer recorded (a stop before that is another case, where
      // the next submit is told the run is still being created).
      let created = await upstream(upstreamToken);
      let polled = false;
      for (let i = 0; !(created.created === 1 && polled) && i < 400; i++) {
        await new Promise((r) => setTimeout(r, 50));
        created = await upstream(upstreamToken);
        polled = await runPolled(upstreamToken);
      }
      expect(created.created).toBe(1);
      expect(polled).toBe(true);
      await stopAndFinishUpstream(signal);
      const first = await waiting;
      // A graceful stop answers the wait at once with the run and the call that reads it.
      if (signal === 'SIGTERM') expect(first.result.content[0].text).toContain('get_agent_run');
      gateway = await start();
      const again = await submit(accessToken, question);
      expect(again.result.content[0].text).toMatch(/^Same arguments as agent run /m);
      expect(again.result.structuredContent).toMatchObject({ completed: true, status: 'completed' });
      expect(await upstream(upstreamToken)).toEqual({ created: 1, cancelled: false });
    },
  );

  it('a task created before a SIGKILL completes after the restart', async () => {
    gateway ??= await start();
    db ??= openSqliteStore(databasePath);
    const location = { databasePath };
    const view = asTestServer(publicUrl, db, publicUrl, location, openRawSql(location));
    const upstreamToken = await sandbox.credential({ speed: 'demo' });
    const { accessToken } = await issueTestToken(view, { upstreamToken });
    const mcp = `${publicUrl}/mcp`;
    await sandbox.control('POST', '/clock', { freeze: true });

    const created = await callTool(mcp, accessToken, 'start_agent_run', { question: 'Still there after?' });
    const { taskId } = created.message.result;
    expect(created.message.result.status).toBe('working');
    expect((await getTask(mcp, accessToken, taskId)).message.result.status).toBe('working');

    gateway.proc.kill('SIGKILL');
    await gateway.proc.exit();
    gateway = null;
    // The run finishes upstream while no server is there to read it.
    await sandbox.advance(60_000);
    gateway = await start();

    const done = await untilEnded(mcp, accessToken, taskId, 30_000);
    expect(done.status).toBe('completed');
    expect(done.result.structuredContent).toMatchObject({ completed: true, status: 'completed' });
    const record = (await sandbox.control('GET', `/credentials/${upstreamToken}`)).body;
    expect(record.runs).toHaveLength(1);
    expect(record.runs[0].status).toBe('completed');
    const log = (await sandbox.control('GET', `/credentials/${upstreamToken}/requests`)).body
      .requests as Array<{
      path: string;
    }>;
    expect(log.some((r) => r.path.endsWith('/cancel'))).toBe(false);
  });
});
