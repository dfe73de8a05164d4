/**
 * A task survives a restart: the gateway process (src/main.ts, SQLite file) creates a task for an agent
 * run, is SIGKILLed while the run works, and a new process on the same file takes the task over once
 * its lease lapsed (TASK_LEASE_SECONDS=1) and settles it; tasks/get then answers `completed` with the
 * run's report. The sandbox is its own process and keeps the run going meanwhile; its clock is frozen,
 * so the run can only finish after the kill. Exactly one run upstream, never cancelled.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OpenStore, openSqliteStore } from '../../src/db/store/index.js';
import { asTestServer, freePort, type Gateway, spawnGateway } from '../helpers/gateway.js';
import { issueTestToken } from '../helpers/grants.js';
import { openRawSql } from '../helpers/raw-sql.js';
import { type Sandbox, startSandbox } from '../helpers/sandbox-process.js';
import { callTool, getTask, untilEnded } from '../helpers/tasks.js';
import { tempDir } from '../helpers/temp.js';

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
    },
  });
}

describe('a task and a restart of the server', () => {
  it('created before a SIGKILL, it completes after the restart', async () => {
    gateway = await start();
    db = openSqliteStore(databasePath);
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
