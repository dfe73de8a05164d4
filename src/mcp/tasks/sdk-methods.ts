import {
  type McpServer,
  MissingRequiredClientCapabilityError,
  ProtocolError,
  ProtocolErrorCode,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import { callerOf } from '../catalog/call-env.js';
import { declaresTasks, TASKS_EXTENSION } from './declaration.js';
import type { Tasks } from './tasks.js';

/** The extension's answer to an unknown id, another caller's task and an expired one alike (SEP-2663 "Protocol Errors"). */
export const TASK_NOT_FOUND = 'Failed to retrieve task: Task not found';

const taskIdParams = { params: z.looseObject({ taskId: z.string() }) };

function notFound(): ProtocolError {
  return new ProtocolError(ProtocolErrorCode.InvalidParams, TASK_NOT_FOUND);
}

/**
 * A tasks method in a request that did not declare the extension: refused with the capability it lacks
 * (-32021, which the SDK answers with HTTP 400). The methods are the extension's (SEP-2663 "Capability
 * Negotiation"; 2026-07-28 "Extension Negotiation": a party that does not share an extension gets core
 * behaviour or an error, and core MCP has no tasks/* methods), so such a request reads or changes no
 * task, even its own.
 */
function undeclared(): MissingRequiredClientCapabilityError {
  return new MissingRequiredClientCapabilityError({
    requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } },
  });
}

/** Whether the request declared the extension: the SDK lifts the `_meta` envelope out of the params. */
function declared(ctx: ServerContext): boolean {
  return declaresTasks({ params: { _meta: ctx.mcpReq.envelope } });
}

/**
 * tasks/get, tasks/cancel and tasks/update on a per-request server (SEP-2663 "Task Polling", "Task
 * Cancellation", "Task Update Requests"). The SDK gives them what it gives every 2026-07-28 request:
 * the envelope and the standard headers checked (Mcp-Name must name the task), `resultType` and the
 * server's identity added to the result; tasks/result, which the extension removed, stays "method not
 * found" (-32601), and a `task` parameter on tools/call is ignored as any unknown member is. A plain
 * tasks/get is also answered outside the SDK in the same bytes (../sdk-bypass/task-call.ts, task-wire.ts).
 */
export function registerTaskMethods(server: McpServer, tasks: Tasks): void {
  const low = server.server;
  low.setRequestHandler('tasks/get', taskIdParams, async (params, ctx) => {
    if (!declared(ctx)) throw undeclared();
    const found = await tasks.get(callerOf(ctx), params.taskId);
    if (!found) throw notFound();
    return JSON.parse(`{${found.fields}}`) as Record<string, unknown>;
  });
  low.setRequestHandler('tasks/cancel', taskIdParams, async (params, ctx) => {
    if (!declared(ctx)) throw undeclared();
    if (!(await tasks.cancel(callerOf(ctx), params.taskId))) throw notFound();
    return {};
  });
  low.setRequestHandler('tasks/update', taskIdParams, async (params, ctx) => {
    if (!declared(ctx)) throw undeclared();
    if (!(await tasks.update(callerOf(ctx), params.taskId))) throw notFound();
    return {};
  });
}
