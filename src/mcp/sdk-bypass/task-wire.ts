import { isJsonContentType, SERVER_INFO_META_KEY } from '@modelcontextprotocol/server';
import { isRecord } from '../results/format.js';
import { declaresTasks } from '../tasks/declaration.js';
import { TASK_NOT_FOUND } from '../tasks/sdk-methods.js';
import type { TaskView } from '../tasks/task-view.js';
import { ENVELOPE_KEYS, isId, withoutOws } from './direct-wire.js';
import { eraOf, MODERN_REVISION } from './era.js';

/**
 * The wire of the tasks extension where the bypass answers it: a plain tasks/get (the request every
 * task's client repeats), the CreateTaskResult a task-creating tools/call answers with, and the
 * "not found" error. The bytes are those the SDK writes for the same results from
 * ../tasks/sdk-methods.ts (tests/mcp/sdk-bypass/task-wire.test.ts compares them).
 */

/** A tasks/get the bypass may answer: its JSON-RPC id and the task id. */
export interface PlainTaskGet {
  id: string | number;
  taskId: string;
}

/**
 * A single 2026-07-28 tasks/get with only `taskId` and the envelope in `_meta`, classified by the SDK's
 * own classifier, with the standard headers its entry requires (MCP-Protocol-Version, Mcp-Method, and
 * Mcp-Name naming the task: SEP-2663 "Streamable HTTP: Routing Headers"), that declares the extension.
 * Anything else is null: the SDK answers it.
 */
export function plainTaskGet(request: Request, body: unknown): PlainTaskGet | null {
  if (!isRecord(body) || body.jsonrpc !== '2.0' || body.method !== 'tasks/get' || !isId(body.id)) return null;
  for (const key in body)
    if (key !== 'jsonrpc' && key !== 'id' && key !== 'method' && key !== 'params') return null;
  const params = body.params;
  if (!isRecord(params) || typeof params.taskId !== 'string') return null;
  for (const key in params) if (key !== 'taskId' && key !== '_meta') return null;
  const meta = params._meta;
  if (!isRecord(meta)) return null;
  for (const key in meta) if (!ENVELOPE_KEYS.has(key)) return null;
  const headers = request.headers;
  if (!isJsonContentType(headers.get('content-type'))) return null;
  const versionHeader = withoutOws(headers.get('mcp-protocol-version'));
  const methodHeader = withoutOws(headers.get('mcp-method'));
  if (versionHeader !== MODERN_REVISION || methodHeader !== 'tasks/get') return null;
  if (withoutOws(headers.get('mcp-name')) !== params.taskId) return null;
  if (eraOf(versionHeader, methodHeader, meta, 'tasks/get') !== 'modern') return null;
  // Without the extension declared the answer is an error (../tasks/sdk-methods.ts), the SDK's to write.
  if (!declaresTasks(body)) return null;
  return { id: body.id, taskId: params.taskId };
}

const metaTexts = new WeakMap<object, string>();

/** The result's `_meta` as the SDK's encode step writes it, made once per server identity. */
function metaText(serverInfo: { name: string; version: string }): string {
  let text = metaTexts.get(serverInfo);
  if (text === undefined) {
    text = JSON.stringify({ [SERVER_INFO_META_KEY]: serverInfo });
    metaTexts.set(serverInfo, text);
  }
  return text;
}

/**
 * A result's members (JSON text without the braces) with `resultType` and the server's identity, as the
 * SDK encodes it. One template: the answer's text is then flattened once, when it is written.
 */
function resultText(
  fields: string,
  resultType: 'complete' | 'task',
  id: string | number,
  serverInfo: { name: string; version: string },
): string {
  const comma = fields === '' ? '' : ',';
  return `{"result":{${fields}${comma}"resultType":"${resultType}","_meta":${metaText(serverInfo)}},"jsonrpc":"2.0","id":${JSON.stringify(id)}}`;
}

/** A tasks/get answer: the task's view (with its stored result spliced in, ../tasks/task-view.ts). */
export function taskGetText(
  id: string | number,
  viewFields: string,
  serverInfo: { name: string; version: string },
): string {
  return resultText(viewFields, 'complete', id, serverInfo);
}

/** The CreateTaskResult of a tools/call (SEP-2663 "Task Creation"): the task's view, `resultType: "task"`. */
export function createTaskText(
  id: string | number,
  view: TaskView,
  serverInfo: { name: string; version: string },
): string {
  return resultText(JSON.stringify(view).slice(1, -1), 'task', id, serverInfo);
}

/** The same error for an unknown id, another caller's task and an expired one (-32602). */
export function taskNotFoundText(id: string | number): string {
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"error":{"code":-32602,"message":${JSON.stringify(TASK_NOT_FOUND)}}}`;
}
