import type { ServerContext } from '@modelcontextprotocol/server';
import type { Caller } from '../auth/caller.js';
import { type Reach, reachOf } from '../tools/index.js';
import { EVERY_TOOL, type ToolSelection } from '../tools/toolsets.js';

/**
 * What a tool call needs from the exchange that carries it, without MCP SDK types: who calls, the
 * JSON-RPC id, how to send a progress notification, and when the client has gone. A call served by the
 * SDK's per-request server reads these from its context (callEnvOf); a waiting call answered outside
 * it (../sdk-bypass/waiting-framed.ts) supplies its own, so nothing of the SDK's exchange stays reachable while it
 * waits.
 */
export interface CallEnv {
  caller: Caller | undefined;
  /**
   * The tools the connection chose (the route's narrowest of grant, URL and headers), checked again
   * by executeIn. The bypass paths leave it out: the route has already answered a call outside it.
   */
  selection?: ToolSelection;
  requestId: string | number;
  /** Sends `notifications/progress` for this call; null when the client sent no progress token. */
  notify: ((progress: number, message: string) => void) | null;
  /** Aborted when the client cancels the call or goes away. */
  signal: AbortSignal;
  /**
   * The controller of `signal`, when the call owns it (../sdk-bypass/waiting-direct.ts): a 2025-era cancel aborts it
   * directly (../cancellation/inflight.ts), so the call keeps one abort signal instead of a second following this one.
   */
  controller?: AbortController;
  /** Told when the call starts waiting for an upstream job. */
  onWaitStart?(): void;
  /**
   * When the request reached the server (the route puts it in the auth info's extra); a waiting call's
   * limit counts from it. Left out where there is no HTTP request (stdio): then from the call's admission.
   */
  arrivedAt?: number;
}

/** The request's arrival the route recorded in its auth info, if any (CallEnv.arrivedAt). */
export function arrivedAtOf(authInfo: { extra?: Record<string, unknown> } | undefined): number | undefined {
  const at = authInfo?.extra?.arrivedAt;
  return typeof at === 'number' ? at : undefined;
}

export function callerOf(ctx: ServerContext): Caller | undefined {
  const extra = ctx.http?.authInfo?.extra as { caller?: Caller } | undefined;
  return extra?.caller;
}

/** The selection the route put on a request's auth info; every tool when there is none. */
export function selectionOf(authInfo: { extra?: Record<string, unknown> } | undefined): ToolSelection {
  return (authInfo?.extra?.selection as ToolSelection | undefined) ?? EVERY_TOOL;
}

/** What a request may see and call: its scopes narrowed by its selection. */
export function reachOfAuth(
  authInfo: { scopes: string[]; extra?: Record<string, unknown> } | undefined,
): Reach {
  return reachOf(authInfo?.scopes ?? [], selectionOf(authInfo));
}

/** The notification a progress report becomes (MCP "Progress": token, progress, total, message). */
export function progressNotification(
  progressToken: string | number,
  progress: number,
  message: string,
): { method: 'notifications/progress'; params: Record<string, unknown> } {
  return {
    method: 'notifications/progress',
    params: { progressToken, progress, total: 100, message },
  };
}

export function callEnvOf(ctx: ServerContext): CallEnv {
  const progressToken = ctx.mcpReq._meta?.progressToken;
  return {
    caller: callerOf(ctx),
    selection: selectionOf(ctx.http?.authInfo),
    requestId: ctx.mcpReq.id,
    notify:
      progressToken === undefined
        ? null
        : (progress, message) => {
            ctx.mcpReq.notify(progressNotification(progressToken, progress, message)).catch(() => {});
          },
    signal: ctx.mcpReq.signal,
    arrivedAt: arrivedAtOf(ctx.http?.authInfo),
  };
}
