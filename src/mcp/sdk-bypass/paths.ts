import type { CallToolResult } from '@modelcontextprotocol/server';
import type { Caller } from '../auth/caller.js';
import type { CompiledTool } from '../catalog/catalog.js';
import { declaresTasks } from '../tasks/declaration.js';
import type { ToolDef } from '../tools/types.js';
import { type PlainCall, plainToolCall } from './direct-wire.js';
import { type PlainTaskGet, plainTaskGet } from './task-wire.js';

/**
 * How much of /mcp may be answered outside the SDK:
 * - `full` (the default): plain calls without any SDK exchange; waiting calls that are not plain are
 *   detached and framed by the SDK at both ends;
 * - `framed`: as `full`, but every waiting call is detached and framed by the SDK (./waiting-framed.ts);
 * - `off`: the SDK answers everything, each tools/call on a per-request server with its one tool.
 * `framed` and `off` exist so the wire tests can compare the bypass with the SDK's own bytes.
 */
export type BypassMode = 'full' | 'framed' | 'off';

/**
 * Who serves a request:
 * - `sdk`: the SDK's per-request server with every tool the caller may list (discovery, initialize,
 *   tools/list, batches, unknown tools and anything else);
 * - `sdk-one-tool`: the SDK's per-request server with only the called tool registered;
 * - `sdk-refusal`: the same, the tool's handler replaced by the route's refusal;
 * - `direct-call`: ./direct-call.ts (a plain call of a tool that does not wait, or its refusal);
 * - `waiting-direct`: ./waiting-direct.ts (a plain call of a tool that waits);
 * - `waiting-framed`: ./waiting-framed.ts (any other call of a tool that waits);
 * - `task-create`: ./task-call.ts (a plain 2026-07-28 call of long work declaring the tasks extension);
 * - `task-get`: ./task-call.ts (a plain tasks/get).
 */
export type ServingPath =
  | 'sdk'
  | 'sdk-one-tool'
  | 'sdk-refusal'
  | 'direct-call'
  | 'waiting-direct'
  | 'waiting-framed'
  | 'task-create'
  | 'task-get';

/** What the handler knows of a request once the route has checked it. */
export interface RequestFacts {
  request: Request;
  body: unknown;
  /** The tool a single tools/call names, when it is one of ours; else undefined. */
  def: ToolDef | undefined;
  tool: CompiledTool | undefined;
  /** The caller's grant covers the tool's scope. */
  granted: boolean;
  /** The route refused the call (scope beyond the member's ceiling): answered without running it. */
  refusal: CallToolResult | undefined;
  caller: Caller | undefined;
  /** This server keeps tasks (the extension is served). */
  tasks: boolean;
}

/** The decision, and the plain call the direct paths answer (parsed once, here). */
export type Decision =
  | { path: 'direct-call' | 'waiting-direct' | 'task-create'; call: PlainCall }
  | { path: 'waiting-framed' }
  | { path: 'sdk' | 'sdk-one-tool' | 'sdk-refusal' };

/**
 * The one decision table of the bypass (README.md beside this file):
 *
 * | the request                                      | full           | framed         | off          |
 * |--------------------------------------------------|----------------|----------------|--------------|
 * | not a tools/call of our tool the caller may call | sdk            | sdk            | sdk          |
 * | refused, plain, the tool does not wait           | direct-call    | direct-call    | sdk-refusal  |
 * | refused, any other                               | sdk-refusal    | sdk-refusal    | sdk-refusal  |
 * | granted, plain, does not wait                    | direct-call    | direct-call    | sdk-one-tool |
 * | granted, plain, waits                            | waiting-direct | waiting-framed | sdk-one-tool |
 * | granted, not plain, waits                        | waiting-framed | waiting-framed | sdk-one-tool |
 * | granted, not plain, does not wait                | sdk-one-tool   | sdk-one-tool   | sdk-one-tool |
 * | granted long work, plain 2026-07-28, tasks declared by a member | task-create | task-create | task-create |
 *
 * A plain tasks/get is the table's first row, taken before the request's other facts are gathered
 * (taskGetPath below): `task-get` in `full`, `sdk` in the other modes.
 *
 * "Plain" is ./direct-wire.ts:plainToolCall's verdict, and a tool whose arguments the SDK mirrors into
 * headers (SEP-2243 `x-mcp-header`, which the bypass does not check) is never plain. A call "waits" when
 * its tool always does (`waits: true`) or waits on request and was called with `wait: true`.
 */
export function choosePath(facts: RequestFacts, mode: BypassMode): Decision {
  const { def, tool } = facts;
  if (!def || !tool || (!facts.refusal && !facts.granted)) return { path: 'sdk' };
  // A task in every mode: it is this server's feature, not a copy of the SDK's answer.
  if (
    facts.tasks &&
    def.work &&
    !facts.refusal &&
    facts.caller?.kind === 'member' &&
    declaresTasks(facts.body)
  ) {
    const call = mirrorsArguments(tool) ? null : plainToolCall(facts.request, facts.body, def.name);
    if (call?.era === 'modern') return { path: 'task-create', call };
  }
  const fallback = facts.refusal ? 'sdk-refusal' : 'sdk-one-tool';
  if (mode === 'off') return { path: fallback };
  const waits = def.waits === true || (def.waits === 'on request' && asksToWait(facts.body));
  if (facts.refusal && waits) return { path: 'sdk-refusal' };
  const call = mirrorsArguments(tool) ? null : plainToolCall(facts.request, facts.body, def.name);
  if (!waits) return call ? { path: 'direct-call', call } : { path: fallback };
  if (call && mode === 'full') return { path: 'waiting-direct', call };
  return { path: 'waiting-framed' };
}

/**
 * The `task-get` path: a plain tasks/get when this server keeps tasks and the mode is `full`, else null.
 * Every working task's client repeats this request, so the handler asks it first, before the listing's
 * cache key and the tool call's facts, which it does not need.
 */
export function taskGetPath(
  request: Request,
  body: unknown,
  tasks: boolean,
  mode: BypassMode,
): PlainTaskGet | null {
  if (!tasks || mode !== 'full' || (body as { method?: unknown } | null)?.method !== 'tasks/get') return null;
  return plainTaskGet(request, body);
}

const mirroring = new WeakMap<CompiledTool, boolean>();

/** Whether the SDK mirrors some of the tool's arguments into headers (SEP-2243) and checks them. */
function mirrorsArguments(tool: CompiledTool): boolean {
  let mirrors = mirroring.get(tool);
  if (mirrors === undefined) {
    const schema = tool.config.inputSchema['~standard'].jsonSchema.input({ target: 'draft-2020-12' });
    mirrors = JSON.stringify(schema).includes('x-mcp-header');
    mirroring.set(tool, mirrors);
  }
  return mirrors;
}

/** A tools/call called with `wait: true` (a get tool that waits on request). */
function asksToWait(body: unknown): boolean {
  const args = (body as { params?: { arguments?: { wait?: unknown } } } | null)?.params?.arguments;
  return args !== null && typeof args === 'object' && args.wait === true;
}
