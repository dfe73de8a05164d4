import { randomBytes } from 'node:crypto';
import type { AuthInfo } from '@modelcontextprotocol/server';
import type { CompiledTool } from '../catalog/catalog.js';
import type { ToolDef } from '../tools/types.js';
import type { DirectWaitingDeps } from './waiting-direct.js';
import { FramedWaitingCall } from './waiting-framed-call.js';

/** What waiting calls need: the same as the direct path's (./waiting-direct.ts). */
export type FramedWaitingDeps = DirectWaitingDeps;

/**
 * Waiting tool calls that are not plain (README.md: the `waiting-framed` path). On the SDK's own path a
 * waiting call holds its McpServer, Server, transport and their web streams, promises and closures for
 * minutes. Here the SDK serves the exchange twice, briefly, and nothing of it is held in between:
 *
 * 1. Start: the SDK parses and checks the request as for any tools/call and runs the tool; when the
 *    tool starts waiting (waitFor → onWaitStart), its handler returns a marker result at once. Every
 *    frame the SDK wrote before (the first progress notification) is forwarded; the marker's answer is
 *    dropped. The call keeps running on the shared scheduler with its own small environment.
 * 2. While it waits: progress notifications and keep-alive comments are written to the response stream
 *    in the SDK's framing (`event: message` / `data: <JSON-RPC>`; `: keepalive`).
 * 3. End: the SDK serves the same request again with a handler that returns the call's result, so the
 *    answer is the SDK's own bytes for either protocol era (result projection, output validation,
 *    `resultType`, `_meta`), written as JSON (2026-07-28 without progress) or as the last event.
 *
 * A call that never waits (an error, a refusal, an instant result) is answered by the first exchange
 * as is. A plain call (./direct-wire.ts:plainToolCall: what almost every client sends) needs neither
 * exchange: ./waiting-direct.ts answers it; this path serves the rest. tests/mcp/sdk-bypass/waiting-wire.test.ts
 * compares all three paths byte for byte.
 */
export class FramedWaitingCalls {
  /** The marker a detached call's first exchange answers with: random per process, never a tool's text. */
  readonly marker = `detached-call-${randomBytes(12).toString('hex')}`;

  constructor(readonly deps: FramedWaitingDeps) {}

  serve(
    request: Request,
    authInfo: AuthInfo,
    parsedBody: unknown,
    def: ToolDef,
    tool: CompiledTool,
  ): Promise<Response> {
    return new FramedWaitingCall(this, request, authInfo, parsedBody, def, tool).serve(request);
  }
}
