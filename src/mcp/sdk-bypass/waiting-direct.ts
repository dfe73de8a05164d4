import type { ServerResponse } from 'node:http';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import type { AuthInfo, CallToolResult } from '@modelcontextprotocol/server';
import type { Logger } from '../../logger.js';
import type { Caller } from '../auth/caller.js';
import { arrivedAtOf, type CallEnv, progressNotification } from '../catalog/call-env.js';
import type { CatalogDeps, CompiledTool, ToolOutcome } from '../catalog/catalog.js';
import { executeIn } from '../catalog/execute.js';
import { toCallToolResult } from '../catalog/model-outcome.js';
import type { ToolDef } from '../tools/types.js';
import { ClientLeft } from '../waiting/stop-reasons.js';
import type { TimerWheel } from '../waiting/timer-wheel.js';
import { checkedResponseText, type PlainCall } from './direct-wire.js';
import { NodeSseOut } from './node-sse-out.js';
import { EVENT_STREAM_HEADERS, type Exchange, isEventStream } from './sdk-exchange.js';
import { type EventOut, messageFrame, readFrames, SseOut } from './sse-out.js';

/** What a direct waiting call needs of the server (./waiting-framed.ts:FramedWaitingDeps is the same). */
export interface DirectWaitingDeps {
  exchange: Exchange;
  catalog: CatalogDeps;
  wheel: TimerWheel;
  /** The SDK's SSE keep-alive interval (handler.ts passes the same value to createMcpHandler). */
  keepAliveMs: number;
  logger: Logger;
  /** The server's identity, which 2026-07-28 answers carry (./direct-wire.ts:responseText). */
  serverInfo: { name: string; version: string };
}

/** A plain waiting call as the handler hands it over. */
export interface DirectWaitingRequest {
  call: PlainCall;
  request: Request;
  authInfo: AuthInfo;
  parsedBody: unknown;
  def: ToolDef;
  tool: CompiledTool;
  outgoing?: ServerResponse | undefined;
}

/**
 * A plain tools/call of a waiting tool (./direct-wire.ts:plainToolCall decided it is one) answered
 * without the SDK's per-request server at all: the call runs in its own small environment
 * (../catalog/call-env.ts) and every byte of the answer is written here as the SDK writes it — on the 2025 era
 * an event stream from the start, on 2026-07-28 JSON, turned into an event stream at the first
 * progress notification as the SDK's transport does; progress notifications, the SDK's keep-alive
 * comments and the result (./direct-wire.ts:responseText). A result those bytes cannot be written for
 * (output its schema refuses, a block of another kind) is framed by the SDK from the finished call, as
 * ./waiting-framed.ts ends every call. tests/mcp/sdk-bypass/waiting-wire*.test.ts compare the wire with the SDK's
 * own path byte for byte.
 *
 * Served by @hono/node-server (the route passes Node's response), the event stream is written straight
 * to Node's response (./node-sse-out.ts) and the client's leaving is heard from it ('close' before the
 * answer finished); under any other caller (app.request) it is a web stream (./sse-out.ts) and the
 * request's abort signal. A JSON answer always goes back through the route, so the middleware that
 * compresses it still does.
 *
 * What a waiting call holds here: this object, its one abort controller, the continuations of the
 * tool's run and Node's response; no McpServer, transport, request copies or web streams, and of the
 * request's body and auth info only what the call needs (the caller; the body's `_meta`, should the
 * SDK have to answer).
 */
export class DirectWaitingCall {
  private readonly controller = new AbortController();
  private out: EventOut | null = null;
  /** Answers the HTTP request (the route awaits it): at once on the 2025 era, else at the first frame. */
  private respond: ((response: Response) => void) | null = null;
  private clientGone = false;
  private readonly caller: Caller | undefined;
  private readonly arrivedAt: number | undefined;
  /** The request's `_meta` (the 2026-07-28 envelope, a progress token), for answerBySdk's body. */
  private readonly meta: unknown;

  private readonly call: PlainCall;
  /** Kept for its abort signal without Node's response, else only by answerBySdk (the adapter keeps it). */
  private readonly request: Request;
  private readonly def: ToolDef;
  private readonly tool: CompiledTool;
  /** Node's response for this request, when served by @hono/node-server. */
  private readonly outgoing: ServerResponse | undefined;

  /** Keeps of `served` only what the call needs: not the body or the auth info themselves. */
  constructor(
    private readonly deps: DirectWaitingDeps,
    served: DirectWaitingRequest,
  ) {
    this.call = served.call;
    this.request = served.request;
    this.def = served.def;
    this.tool = served.tool;
    this.outgoing = served.outgoing;
    this.caller = (served.authInfo.extra as { caller?: Caller } | undefined)?.caller;
    this.arrivedAt = arrivedAtOf(served.authInfo);
    this.meta = (served.parsedBody as { params: { _meta?: unknown } }).params._meta;
  }

  serve(): Promise<Response> {
    const answered = new Promise<Response>((resolve) => {
      this.respond = resolve;
    });
    const stopWatching = this.watchClient();
    if (this.call.era === 'legacy') this.openStream();
    const { running } = this.deps.catalog;
    const ended = () => {
      stopWatching?.();
      running.delete(done);
    };
    // A continuation, not an async function awaiting the call: nothing of this method stays suspended
    // while the tool waits.
    const done: Promise<void> = executeIn(this.def, this.call.args, this.env(), this.deps.catalog).then(
      (outcome) => this.answerWith(outcome).finally(ended),
      (error: unknown) => {
        this.failed(error);
        ended();
      },
    );
    running.add(done);
    return answered;
  }

  /**
   * Hears the client leave: Node's response closes before the answer finished (it is this request's
   * own, so the listener needs no removing; `on`, as it closes once: `once` would add a wrapper object
   * and a bound function per call). Without it, the request's abort signal, whose listener is removed
   * (returned) when the call ends.
   */
  private watchClient(): (() => void) | null {
    const outgoing = this.outgoing;
    if (!outgoing) return this.watchSignal(this.request.signal);
    outgoing.on('close', () => {
      if (!outgoing.writableFinished) this.gone();
    });
    return null;
  }

  private watchSignal(signal: AbortSignal): () => void {
    const onClientGone = () => this.gone();
    signal.addEventListener('abort', onClientGone, { once: true });
    return () => signal.removeEventListener('abort', onClientGone);
  }

  /** Answers with the call's outcome; never rejects (a failure answers 500 or ends the stream). */
  private async answerWith(outcome: ToolOutcome): Promise<void> {
    if (this.clientGone || (this.out !== null && !this.out.isOpen)) {
      // The SDK's exchange closes with the request and answers 499 (createMcpHandler).
      this.respond?.(new Response(null, { status: 499 }));
      this.respond = null;
      this.out?.close();
      return;
    }
    try {
      const result = toCallToolResult(outcome);
      const text = await this.framed(result, outcome.ok ? outcome.json : undefined);
      if (text !== null) this.answer(text);
      else await this.answerBySdk(result);
    } catch (error) {
      this.failed(error);
    }
  }

  /** What the tool sees of its exchange (../catalog/call-env.ts): no SDK object anywhere. */
  private env(): CallEnv {
    const token = this.call.progressToken;
    return {
      caller: this.caller,
      requestId: this.call.id,
      notify: token === undefined ? null : (progress, message) => this.notify(token, progress, message),
      signal: this.controller.signal,
      controller: this.controller,
      arrivedAt: this.arrivedAt,
    };
  }

  private notify(token: string | number, progress: number, message: string): void {
    if (this.clientGone) return;
    if (!this.out) this.openStream();
    this.out?.write(
      messageFrame(JSON.stringify({ jsonrpc: '2.0', ...progressNotification(token, progress, message) })),
    );
  }

  /** The answer becomes an event stream (the SDK's headers), with its keep-alive comments. */
  private openStream(): void {
    if (this.outgoing) {
      this.out = new NodeSseOut(this.outgoing, this.deps.wheel, this.deps.keepAliveMs);
      this.out.keepAlive();
      this.respond?.(RESPONSE_ALREADY_SENT);
      this.respond = null;
      return;
    }
    const out = new SseOut(this.deps.wheel, this.deps.keepAliveMs, () => this.gone());
    this.out = out;
    out.keepAlive();
    this.respond?.(new Response(out.stream, { status: 200, headers: EVENT_STREAM_HEADERS }));
    this.respond = null;
  }

  /** The result's text, when it passes the tool's output schema (else the SDK frames it). */
  private framed(result: CallToolResult, structuredJson: string | undefined): Promise<string | null> {
    return checkedResponseText(this.call, result, this.def, this.tool, this.deps.serverInfo, structuredJson);
  }

  private answer(text: string): void {
    if (this.out) {
      this.out.write(messageFrame(text));
      this.out.close();
      return;
    }
    this.respond?.(new Response(text, { status: 200, headers: { 'content-type': 'application/json' } }));
    this.respond = null;
  }

  /**
   * The SDK answers the same request from the finished result; its frames follow those sent here. Its
   * exchange sees the request as the client sent it (plainToolCall let through only this shape) and the
   * caller; the bearer token itself is not kept for the wait.
   */
  private async answerBySdk(result: CallToolResult): Promise<void> {
    const standIn = new Request(this.request.url, { method: 'POST', headers: this.request.headers });
    const { call, caller, def, meta } = this;
    const body = {
      jsonrpc: '2.0',
      id: call.id,
      method: 'tools/call',
      params: {
        name: def.name,
        ...(call.args === undefined ? {} : { arguments: call.args }),
        ...(meta === undefined ? {} : { _meta: meta }),
      },
    };
    const authInfo: AuthInfo = {
      token: '',
      clientId: caller?.clientId ?? '',
      scopes: [...(caller?.scopes ?? [])],
      extra: { caller },
    };
    const response = await this.deps.exchange(standIn, authInfo, body, {
      ...this.tool,
      handler: async () => result,
    });
    const out = this.out;
    if (!out) {
      this.respond?.(response);
      this.respond = null;
      return;
    }
    if (isEventStream(response)) await readFrames(response.body, (frame) => out.write(frame));
    else out.write(messageFrame(await response.text()));
    out.close();
  }

  private failed(error: unknown): void {
    this.deps.logger.error({ err: error, tool: this.def.name }, 'answering a waiting call failed');
    this.respond?.(new Response(null, { status: 500 }));
    this.respond = null;
    this.out?.close();
  }

  private gone(): void {
    this.clientGone = true;
    this.out?.close();
    this.controller.abort(new ClientLeft());
  }
}
