import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Context } from 'hono';

/**
 * The Node ServerResponse behind this request when served by @hono/node-server (it passes
 * `{ incoming, outgoing }` as the app's env), or null under any other caller (`app.request` in tests).
 *
 * Headers every response carries are set on it before the route runs: Node merges the headers the
 * adapter later passes to `writeHead` over them, the passed ones taking precedence (node:http
 * `response.writeHead`). So a route's own header wins, a raw `Response` returned by a route (the MCP
 * handler's) still gets them, and the adapter keeps its fast path: touching `c.res.headers` instead
 * would build a web `Headers` for every response.
 */
export function nodeResponse(c: Context): Pick<ServerResponse, 'setHeader'> | null {
  const outgoing = (c.env as { outgoing?: Partial<ServerResponse> } | undefined)?.outgoing;
  return typeof outgoing?.setHeader === 'function' ? (outgoing as ServerResponse) : null;
}

/** Sets `headers` on every response unless the route set its own (see nodeResponse). */
export async function withDefaultHeaders(
  c: Context,
  headers: ReadonlyArray<readonly [string, string]>,
  next: () => Promise<void>,
): Promise<void> {
  const outgoing = nodeResponse(c);
  if (outgoing) {
    for (const [name, value] of headers) outgoing.setHeader(name, value);
    return next();
  }
  await next();
  for (const [name, value] of headers) if (!c.res.headers.has(name)) c.res.headers.set(name, value);
}

/**
 * True when the client's side of the request is gone (it disconnected, or the server's request
 * timeout cut off a body that never finished): an error then is the client's abort, not a failure of
 * ours, and nobody is left to answer.
 */
export function clientGone(c: Context): boolean {
  const incoming = (c.env as { incoming?: Partial<IncomingMessage> } | undefined)?.incoming;
  return incoming?.destroyed === true;
}
