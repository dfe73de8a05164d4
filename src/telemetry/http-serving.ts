import type { ServerResponse } from 'node:http';
import { context, type Histogram, propagation, ROOT_CONTEXT, type Tracer } from '@opentelemetry/api';
import { mcpMessages, responseOutcome } from './mcp-message.js';
import { beginCall, type McpCall } from './server-spans.js';

/*
 * One POST to /mcp under its MCP spans. A span ends when its answer has gone: a JSON body once read,
 * an event stream at the response event for its id (or the stream's end), an answer written straight
 * to Node's response when that response closes. Only runs when telemetry is on: reading the answer
 * costs a copy that the untraced path never makes.
 */

/** @hono/node-server's marker of a response already written to Node's response. */
const ALREADY_SENT = 'x-hono-already-sent';

const headerGetter = {
  get: (carrier: Headers, key: string) => carrier.get(key) ?? undefined,
  keys: (carrier: Headers) => [...carrier.keys()],
};

export async function serveHttp(
  tracer: Tracer,
  duration: Histogram,
  request: Request,
  body: unknown,
  outgoing: ServerResponse | undefined,
  serve: () => Promise<Response>,
): Promise<Response> {
  const messages = mcpMessages(body);
  if (messages.length === 0) return serve();
  const transport = {
    network: 'tcp' as const,
    ambient: propagation.extract(ROOT_CONTEXT, request.headers, headerGetter),
    protocolVersion: request.headers.get('mcp-protocol-version')?.slice(0, 32) ?? undefined,
  };
  const begun = messages.map((message) => beginCall(tracer, duration, message, transport));
  const calls = begun.map((b) => b.call);
  const endAll = () => {
    for (const call of calls) call.end();
  };
  let response: Response;
  try {
    response = await context.with((begun[0] as (typeof begun)[0]).context, serve);
  } catch (error) {
    for (const call of calls) call.errorType ??= error instanceof Error ? error.name : 'error';
    endAll();
    throw error;
  }
  outgoing?.once('close', endAll);
  if (response.status >= 400) for (const call of calls) call.errorType ??= String(response.status);
  if (response.headers.get(ALREADY_SENT)) return response;
  const type = response.headers.get('content-type') ?? '';
  if (response.body && type.includes('application/json')) {
    const text = await response.text();
    noteAll(calls, parsed(text));
    endAll();
    return new Response(text, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  }
  if (response.body && type.includes('text/event-stream')) {
    const scanned = response.body.pipeThrough(eventScanner(calls, endAll));
    return new Response(scanned, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  }
  endAll();
  return response;
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Notes each response of a body (one, or a batch's) on the call with its id; ends nothing. */
function noteAll(calls: McpCall[], body: unknown): McpCall[] {
  const answered: McpCall[] = [];
  for (const item of Array.isArray(body) ? body : [body]) {
    const outcome = responseOutcome(item);
    if (!outcome) continue;
    const call = calls.length === 1 ? calls[0] : undefined;
    const match = call ?? calls.find((c) => outcome.id !== undefined && c.id === outcome.id);
    if (!match) continue;
    match.note(outcome);
    answered.push(match);
  }
  return answered;
}

/**
 * Passes an event stream through unchanged, ending a call's span when the event that answers it goes
 * by (progress notifications before it do not), and every remaining one when the stream ends.
 */
function eventScanner(calls: McpCall[], endAll: () => void): TransformStream<Uint8Array, Uint8Array> {
  const decoder = new TextDecoder();
  let pending = '';
  return new TransformStream({
    transform(chunk, controller) {
      controller.enqueue(chunk);
      pending += decoder.decode(chunk, { stream: true });
      let end = pending.indexOf('\n\n');
      while (end !== -1) {
        const event = pending.slice(0, end);
        pending = pending.slice(end + 2);
        const data = event
          .split('\n')
          .filter((line) => line.startsWith('data:'))
          .map((line) => line.slice(5).trimStart())
          .join('\n');
        if (data.includes('"result"') || data.includes('"error"'))
          for (const call of noteAll(calls, parsed(data))) call.end();
        end = pending.indexOf('\n\n');
      }
    },
    flush() {
      endAll();
    },
  });
}
