import type { TaskRow } from '../../src/mcp/tasks/task-store.js';
import type { Json } from './harness.js';

/**
 * Raw 2026-07-28 requests for the tasks extension's tests: the per-request envelope (declaring the
 * extension, or not), the standard headers the SDK requires (Mcp-Name names the tool or the task), and
 * the answer parsed. What a real client sends is in tests/mcp/tasks/tasks-client.test.ts.
 */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

export function envelope(declareTasks: boolean): Record<string, unknown> {
  return {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'tasks-test', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': declareTasks
      ? { extensions: { [TASKS_EXTENSION]: {} } }
      : {},
  };
}

let nextId = 1;

/** One JSON-RPC request; its HTTP status and the JSON-RPC message answered (JSON or the last SSE event). */
export async function rpc(
  url: string,
  access: string,
  method: string,
  params: Record<string, unknown>,
  options: { declareTasks?: boolean; id?: number; headers?: Record<string, string> } = {},
): Promise<{ status: number; message: Json; text: string }> {
  const name = method === 'tools/call' ? params.name : params.taskId;
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': method,
    ...(access ? { authorization: `Bearer ${access}` } : {}),
    ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
    ...options.headers,
  };
  const body = {
    jsonrpc: '2.0',
    id: options.id ?? nextId++,
    method,
    params: { ...params, _meta: envelope(options.declareTasks ?? true) },
  };
  const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
  const text = await res.text();
  const events = [...text.matchAll(/^data: (.*)$/gm)].map((m) => m[1] ?? '');
  const last = events.at(-1);
  let message: Json = null;
  try {
    message = JSON.parse(last ?? text);
  } catch {
    message = null;
  }
  return { status: res.status, message, text };
}

/** tools/call declaring the extension: the CreateTaskResult (or the tool result, when not a task). */
export async function callTool(url: string, access: string, name: string, args: Json, declareTasks = true) {
  return rpc(url, access, 'tools/call', { name, arguments: args }, { declareTasks });
}

export async function getTask(url: string, access: string, taskId: string) {
  return rpc(url, access, 'tasks/get', { taskId });
}

/** Polls tasks/get until the task is no longer working (or `ms` pass); returns the last answer's result. */
export async function untilEnded(url: string, access: string, taskId: string, ms = 20_000): Promise<Json> {
  const end = Date.now() + ms;
  for (;;) {
    const { message } = await getTask(url, access, taskId);
    if (message?.result?.status !== 'working' || Date.now() > end) return message?.result ?? message;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * `n` working task rows of one person, held by a lease of another instance for an hour (nothing
 * settles them): what a task limit counts, stored directly by a test.
 */
export function fillerTasks(
  owner: { userId: string; clientId: string; workspaceId: string },
  n: number,
  userId = owner.userId,
): TaskRow[] {
  const now = Date.now();
  return Array.from({ length: n }, (_, i) => ({
    id: `filler-${userId}-${owner.workspaceId}-${i}`,
    ownerUserId: userId,
    ownerClientId: owner.clientId,
    ownerGrantId: 'filler-grant',
    ownerWorkspaceId: owner.workspaceId,
    tool: 'start_agent_run',
    args: '{}',
    jobKind: 'run',
    jobId: `filler-${i}`,
    reusedAgeMs: null,
    status: 'working',
    statusMessage: 'filler',
    createdAt: now,
    updatedAt: now,
    nextPollAt: null,
    result: null,
    leaseOwner: 'another-instance',
    leaseUntil: now + 3_600_000,
    expiresAt: now + 3_600_000,
  }));
}
