import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Json } from '../helpers/harness.js';
import { ROOT } from '../helpers/process.js';
import { TASKS_EXTENSION } from '../helpers/tasks.js';
import { tempDir } from '../helpers/temp.js';

/**
 * The stdio server keeps no tasks (no database: a task would not outlive its process) and so does not
 * state the tasks extension at discovery. tasks/get, tasks/update and tasks/cancel are therefore no
 * methods of it, declared or not: -32601 (JSON-RPC 2.0 §5.1), never -32021, which would tell a client
 * to declare the extension and try again for methods that are not there. The hosted server, which
 * keeps tasks, answers -32021 to a request that does not declare it: tests/mcp/tasks/undeclared-methods.
 */
const cwd = tempDir('sim-stdio-tasks-');
const child = spawn(process.execPath, [join(ROOT, 'bin', 'social-intel-mcp.js'), 'stdio'], {
  cwd: cwd.path,
  // No upstream configured: the built-in sandbox with its own credential.
  env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn' },
  stdio: ['pipe', 'pipe', 'ignore'],
});
const answers = new Map<number, (message: Json) => void>();
createInterface({ input: child.stdout }).on('line', (line) => {
  const message = JSON.parse(line) as Json;
  answers.get(message.id)?.(message);
});
let nextId = 1;

function request(method: string, params: Json, declareTasks: boolean): Promise<Json> {
  const id = nextId++;
  const answered = new Promise<Json>((resolve) => answers.set(id, resolve));
  const _meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'stdio-tasks-test', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': declareTasks
      ? { extensions: { [TASKS_EXTENSION]: {} } }
      : {},
  };
  child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta } })}\n`);
  return answered;
}

beforeAll(async () => {
  // Answered once the server reads its input.
  await request('server/discover', {}, false);
});

afterAll(() => {
  child.kill('SIGKILL');
  cwd.remove();
});

it('does not state the tasks extension at discovery', async () => {
  const discovered = await request('server/discover', {}, true);
  expect(discovered.result.capabilities.extensions?.[TASKS_EXTENSION]).toBeUndefined();
  expect(discovered.result.capabilities.tasks).toBeUndefined();
});

it.each([
  ['tasks/get', {}],
  ['tasks/update', { inputResponses: {} }],
  ['tasks/cancel', {}],
])('%s is no method of it, declared or not: -32601', async (method, extra) => {
  for (const declareTasks of [false, true]) {
    const answer = await request(method, { taskId: 'gate-test', ...extra }, declareTasks);
    expect(answer.error, `declared: ${declareTasks}`).toEqual({ code: -32601, message: 'Method not found' });
  }
});
