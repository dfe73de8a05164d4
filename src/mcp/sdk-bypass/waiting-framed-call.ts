import type { AuthInfo, CallToolResult, ServerContext } from '@modelcontextprotocol/server';
import { arrivedAtOf, type CallEnv, callerOf, progressNotification } from '../catalog/call-env.js';
import type { CompiledTool } from '../catalog/catalog.js';
import { executeIn } from '../catalog/execute.js';
import { toCallToolResult } from '../catalog/model-outcome.js';
import type { ToolDef } from '../tools/types.js';
import { ClientLeft } from '../waiting/stop-reasons.js';
import { EVENT_STREAM_HEADERS, isEventStream } from './sdk-exchange.js';
import { messageFrame, readFrames, SseOut } from './sse-out.js';
import type { DirectWaitingDeps } from './waiting-direct.js';

/**
 * What a call needs of the calls it belongs to (./waiting-framed.ts:FramedWaitingCalls), named here so
 * the two files do not import each other.
 */
export interface FramedCallOwner {
  readonly marker: string;
  readonly deps: DirectWaitingDeps;
}

/**
 * One waiting call on the framed path, from the SDK's first exchange through its wait to the second
 * (./waiting-framed.ts tells the steps).
 */
export class FramedWaitingCall {
  private readonly controller = new AbortController();
  /** The first exchange's context, until the call detaches from it. */
  private unlinkSdk: (() => void) | null = null;
  private sdkNotify: ((progress: number, message: string) => void) | null = null;
  private detached = false;
  private onDetach: (() => void) | null = null;
  private execution: Promise<CallToolResult> | null = null;
  private out: SseOut | null = null;
  /** Frames written after detaching but before the response stream exists. */
  private early: string[] | null = [];
  /** JSON mode: answers the HTTP request (the route awaits it). */
  private answer: ((response: Response) => void) | null = null;
  private clientGone = false;
  /** Resolved once the response (stream or pending JSON answer) is set up and the first frames sent. */
  private setUp: () => void = () => {};
  private readonly ready = new Promise<void>((resolve) => {
    this.setUp = resolve;
  });
  private readonly url: string;
  private readonly headers: [string, string][];
  /**
   * Aborts the first exchange's stand-in request when the client goes away during it; dropped once
   * that exchange is over, and with it whatever the SDK hung on its signal (stand-in below).
   */
  private firstExchangeAbort: AbortController | null = null;

  constructor(
    private readonly calls: FramedCallOwner,
    request: Request,
    private readonly authInfo: AuthInfo,
    private readonly parsedBody: unknown,
    private readonly def: ToolDef,
    private readonly tool: CompiledTool,
  ) {
    // Both exchanges see a stand-in of the request: its URL and headers are all they need (the body is
    // parsed). The bearer token is not kept: the caller is already in authInfo.
    this.url = request.url;
    this.headers = [];
    for (const pair of request.headers) if (pair[0] !== 'authorization') this.headers.push(pair);
  }

  /**
   * The request as the SDK's exchanges see it. Never the client's own: the SDK's 2025-era stateless
   * serving hangs a listener holding its McpServer and transport on the request's abort signal and
   * never removes it, which would keep them alive for as long as the client's request is open.
   */
  private standIn(signal?: AbortSignal): Request {
    return new Request(this.url, { method: 'POST', headers: this.headers, ...(signal ? { signal } : {}) });
  }

  async serve(request: Request): Promise<Response> {
    const { exchange, logger } = this.calls.deps;
    const onClientGone = () => {
      this.firstExchangeAbort?.abort();
      this.gone();
    };
    request.signal.addEventListener('abort', onClientGone, { once: true });
    this.firstExchangeAbort = new AbortController();
    const first = await exchange(
      this.standIn(this.firstExchangeAbort.signal),
      this.authInfo,
      this.parsedBody,
      {
        ...this.tool,
        handler: (args, ctx) => this.start(args, ctx),
      },
    );
    this.firstExchangeAbort = null;
    if (!isEventStream(first)) {
      if (!this.detached) {
        request.signal.removeEventListener('abort', onClientGone);
        return first;
      }
      await first.body?.cancel();
      const answered = new Promise<Response>((resolve) => {
        this.answer = resolve;
      });
      if (this.early?.length) this.upgrade();
      this.setUp();
      return answered;
    }
    const out = new SseOut(this.calls.deps.wheel, this.calls.deps.keepAliveMs, onClientGone);
    this.out = out;
    const headers = Object.fromEntries(first.headers);
    readFrames(first.body, (frame) => {
      if (!frame.includes(this.calls.marker)) out.write(frame);
    }).then(
      () => {
        if (!this.detached) {
          request.signal.removeEventListener('abort', onClientGone);
          out.close();
          return;
        }
        for (const frame of this.early ?? []) out.write(frame);
        this.early = null;
        out.keepAlive();
        this.setUp();
      },
      (error: unknown) => {
        logger.warn({ err: error }, 'reading the first exchange of a waiting call failed');
        out.close();
        this.setUp();
      },
    );
    return new Response(out.stream, { status: first.status, headers });
  }

  /**
   * The first exchange's tool handler: runs the call until it answers or starts waiting. Nothing that
   * outlives the exchange may be a closure created here or in any function that holds `ctx` in a
   * closure: V8 gives all closures of one function call one shared context, so a callback made here
   * next to one reading `ctx` would keep the SDK's whole exchange (McpServer, transport, streams)
   * reachable while the call waits. The closures that need `ctx` are made in linkSdk, those the call
   * keeps in callEnv and detaching.
   */
  private async start(args: unknown, ctx: ServerContext): Promise<CallToolResult> {
    this.linkSdk(ctx);
    const env = this.callEnv(
      callerOf(ctx),
      ctx.mcpReq.id,
      ctx.mcpReq._meta?.progressToken,
      arrivedAtOf(ctx.http?.authInfo),
    );
    const execution = executeIn(this.def, args, env, this.calls.deps.catalog).then(toCallToolResult);
    this.execution = execution;
    const first = await Promise.race([execution, this.detaching()]);
    this.onDetach = null;
    if (first !== null) {
      this.unlinkSdk?.();
      return first;
    }
    return { content: [{ type: 'text', text: this.calls.marker }], isError: true };
  }

  /** Until the call detaches: the SDK's cancellation reaches the call, progress goes through the SDK. */
  private linkSdk(ctx: ServerContext): void {
    const abortFromSdk = () => this.controller.abort(ctx.mcpReq.signal.reason);
    ctx.mcpReq.signal.addEventListener('abort', abortFromSdk, { once: true });
    this.sdkNotify = (progress, message) => {
      const token = ctx.mcpReq._meta?.progressToken;
      if (token === undefined) return;
      ctx.mcpReq.notify(progressNotification(token, progress, message)).catch(() => {});
    };
    this.unlinkSdk = () => {
      ctx.mcpReq.signal.removeEventListener('abort', abortFromSdk);
      this.sdkNotify = null;
      this.unlinkSdk = null;
    };
  }

  /** What the tool sees of its exchange for the whole call (call-env.ts): no SDK object in reach. */
  private callEnv(
    caller: CallEnv['caller'],
    requestId: string | number,
    progressToken: string | number | undefined,
    arrivedAt: number | undefined,
  ): CallEnv {
    return {
      caller,
      requestId,
      notify:
        progressToken === undefined
          ? null
          : (progress, message) => this.notify(progressToken, progress, message),
      signal: this.controller.signal,
      onWaitStart: () => this.detach(),
      arrivedAt,
    };
  }

  /** Resolves with null when the call starts waiting (detach). */
  private detaching(): Promise<null> {
    return new Promise<null>((resolve) => {
      this.onDetach = () => resolve(null);
    });
  }

  private detach(): void {
    if (this.detached) return;
    this.detached = true;
    this.unlinkSdk?.();
    this.onDetach?.();
    const done = this.finish();
    const { running } = this.calls.deps.catalog;
    running.add(done);
    void done.finally(() => running.delete(done));
  }

  private notify(progressToken: string | number, progress: number, message: string): void {
    if (this.sdkNotify) {
      this.sdkNotify(progress, message);
      return;
    }
    const frame = messageFrame(
      JSON.stringify({ jsonrpc: '2.0', ...progressNotification(progressToken, progress, message) }),
    );
    if (this.early) this.early.push(frame);
    else this.out?.write(frame);
    if (this.answer && !this.out) this.upgrade();
  }

  /** JSON mode meeting its first notification: the answer becomes an event stream, as the SDK's would. */
  private upgrade(): void {
    const resolve = this.answer;
    if (!resolve) return;
    this.answer = null;
    const out = new SseOut(this.calls.deps.wheel, this.calls.deps.keepAliveMs, () => this.gone());
    this.out = out;
    for (const frame of this.early ?? []) out.write(frame);
    this.early = null;
    out.keepAlive();
    resolve(new Response(out.stream, { status: 200, headers: EVENT_STREAM_HEADERS }));
  }

  private gone(): void {
    this.clientGone = true;
    this.controller.abort(new ClientLeft());
  }

  /** After the wait: the SDK answers the same request with the call's result (./waiting-framed.ts, step 3). */
  private async finish(): Promise<void> {
    // Set up only once the first exchange is over, by which time start() has the execution.
    await this.ready;
    const execution = this.execution as Promise<CallToolResult>;
    await execution.then(
      () => {},
      () => {},
    );
    if (this.clientGone || (this.out !== null && !this.out.isOpen)) {
      this.answer?.(new Response(null, { status: 499 }));
      this.out?.close();
      return;
    }
    try {
      const response = await this.calls.deps.exchange(this.standIn(), { ...this.authInfo }, this.parsedBody, {
        ...this.tool,
        handler: () => execution,
      });
      if (this.answer) {
        this.answer(response);
        return;
      }
      const out = this.out;
      if (!out) return;
      if (isEventStream(response)) await readFrames(response.body, (frame) => out.write(frame));
      else out.write(messageFrame(await response.text()));
      out.close();
    } catch (error) {
      this.calls.deps.logger.error({ err: error, tool: this.def.name }, 'answering a waiting call failed');
      this.answer?.(new Response(null, { status: 500 }));
      this.out?.close();
    }
  }
}
