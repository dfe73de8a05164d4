import type { AuthInfo, CallToolResult } from '@modelcontextprotocol/server';
import { jsonResponse } from '../../http/compress.js';
import type { Logger } from '../../logger.js';
import type { CallEnv } from '../catalog/call-env.js';
import { arrivedAtOf, progressNotification } from '../catalog/call-env.js';
import type { CatalogDeps, CompiledTool } from '../catalog/catalog.js';
import { executeIn } from '../catalog/execute.js';
import { toCallToolResult } from '../catalog/model-outcome.js';
import type { ToolDef } from '../tools/types.js';
import { ClientLeft } from '../waiting/stop-reasons.js';
import type { TimerWheel } from '../waiting/timer-wheel.js';
import { checkedResponseText, type PlainCall } from './direct-wire.js';
import { EVENT_STREAM_HEADERS, type Exchange } from './sdk-exchange.js';
import { messageFrame, readFrames, SseOut } from './sse-out.js';

/** A call's result, and its structured content as JSON text when the token budget wrote it. */
interface Ran {
  result: CallToolResult;
  structuredJson?: string;
}

export interface DirectCallsDeps {
  catalog: CatalogDeps;
  wheel: TimerWheel;
  /** The SDK's SSE keep-alive interval (handler.ts passes the same value to createMcpHandler). */
  keepAliveMs: number;
  /** The SDK's exchange, for a result the direct path does not frame itself. */
  exchange: Exchange;
  serverInfo: { name: string; version: string };
  logger: Logger;
}

/** A plain call of a tool that does not wait, as the handler hands it over. */
export interface DirectRequest {
  call: PlainCall;
  request: Request;
  authInfo: AuthInfo;
  parsedBody: unknown;
  def: ToolDef;
  tool: CompiledTool;
  /** The route refused the call (scope beyond the member's ceiling): answered without running it. */
  refusal?: CallToolResult | undefined;
}

/**
 * A plain tools/call of a tool that does not wait, answered outside the SDK's per-request server: no
 * McpServer, transport, request and result schema parses or web streams per call; the tool runs in its own small environment (../catalog/call-env.ts) and the answer is the SDK's bytes, written
 * here: JSON on the 2026-07-28 era, one event on the 2025 era's stream (sent at once, with the SDK's
 * keep-alive comments while the call runs). A result these bytes cannot be written for (a block of
 * another kind, output that fails the tool's output schema) or a call that sent progress is answered by
 * the SDK from the finished result, as a waiting call's end is (./waiting-framed.ts).
 * tests/mcp/sdk-bypass/direct-wire.test.ts compares both paths byte for byte.
 */
export class DirectCalls {
  constructor(readonly deps: DirectCallsDeps) {}

  serve(served: DirectRequest): Promise<Response> {
    if (served.call.era === 'modern') return this.json(served);
    return Promise.resolve(this.events(served));
  }

  private async json(served: DirectRequest): Promise<Response> {
    const progress: Array<[number, string]> = [];
    const ran = await this.run(served, served.request.signal, progress);
    // The SDK's exchange closes with the request and answers 499 (createMcpHandler).
    if (served.request.signal.aborted) return new Response(null, { status: 499 });
    const text = progress.length === 0 ? await this.framed(served, ran) : null;
    if (text !== null) return jsonResponse(text);
    return this.replay(served, ran.result, progress);
  }

  private events(served: DirectRequest): Response {
    const { request } = served;
    const controller = new AbortController();
    const gone = () => controller.abort(new ClientLeft());
    const out = new SseOut(this.deps.wheel, this.deps.keepAliveMs, gone);
    request.signal.addEventListener('abort', gone, { once: true });
    out.keepAlive();
    const progress: Array<[number, string]> = [];
    const answer = async () => {
      try {
        const ran = await this.run(served, controller.signal, progress);
        if (!out.isOpen) return;
        const text = progress.length === 0 ? await this.framed(served, ran) : null;
        if (text !== null) out.write(messageFrame(text));
        else {
          const response = await this.replay(served, ran.result, progress);
          if (/^text\/event-stream\b/i.test(response.headers.get('content-type') ?? ''))
            await readFrames(response.body, (frame) => out.write(frame));
          else out.write(messageFrame(await response.text()));
        }
      } catch (error) {
        this.deps.logger.error({ err: error, tool: served.def.name }, 'answering a tool call failed');
      } finally {
        request.signal.removeEventListener('abort', gone);
        out.close();
      }
    };
    void answer();
    return new Response(out.stream, { status: 200, headers: EVENT_STREAM_HEADERS });
  }

  /** Runs the call (or takes the route's refusal), as the SDK's per-request server would. */
  private async run(
    served: DirectRequest,
    signal: AbortSignal,
    progress: Array<[number, string]>,
  ): Promise<Ran> {
    const { call, authInfo } = served;
    if (served.refusal) return { result: served.refusal };
    const env: CallEnv = {
      caller: (authInfo.extra as { caller?: CallEnv['caller'] } | undefined)?.caller,
      requestId: call.id,
      // A tool that does not wait sends no progress; if one ever does, the SDK frames the answer.
      notify: call.progressToken === undefined ? null : (p, message) => progress.push([p, message]),
      signal,
      arrivedAt: arrivedAtOf(authInfo),
    };
    const outcome = await executeIn(served.def, call.args, env, this.deps.catalog);
    return outcome.ok
      ? { result: toCallToolResult(outcome), structuredJson: outcome.json }
      : { result: toCallToolResult(outcome) };
  }

  /** The answer's text, when the result passes the tool's output schema (else the SDK answers). */
  private framed(served: DirectRequest, ran: Ran): Promise<string | null> {
    return checkedResponseText(
      served.call,
      ran.result,
      served.def,
      served.tool,
      this.deps.serverInfo,
      ran.structuredJson,
    );
  }

  /** The SDK answers the same request from the finished result (and the progress it reported). */
  private replay(
    served: DirectRequest,
    result: CallToolResult,
    progress: Array<[number, string]>,
  ): Promise<Response> {
    return this.deps.exchange(served.request, { ...served.authInfo }, served.parsedBody, {
      ...served.tool,
      handler: async (_args, ctx) => {
        const token = served.call.progressToken;
        if (token !== undefined)
          for (const [p, message] of progress)
            await ctx.mcpReq.notify(progressNotification(token, p, message)).catch(() => {});
        return result;
      },
    });
  }
}
