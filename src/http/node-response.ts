import {
  type IncomingMessage,
  type OutgoingHttpHeader,
  type OutgoingHttpHeaders,
  ServerResponse,
} from 'node:http';
import type { Context } from 'hono';

type HeaderList = ReadonlyArray<readonly [string, string]>;

/**
 * The server's Node response (server.ts gives it to node:http as its ServerResponse class): headers
 * every response carries unless its route set its own (security headers, X-Request-Id) are added when
 * the head is written, in the one `writeHead` call, rather than with a `setHeader` each before the
 * route runs. Each setHeader call validates, lower-cases and stores its header in the response's own
 * map, and the map stays alive as long as the response: a waiting call would hold it for minutes. A header the route set, by any name's case, or one set
 * with setHeader, wins over a default (RFC 9110 §5.1: field names are case-insensitive).
 */
export class DefaultHeadersResponse<
  Request extends IncomingMessage = IncomingMessage,
> extends ServerResponse<Request> {
  private defaults: HeaderList[] | null = null;

  /** Sends `headers` with this response unless it sets its own. */
  addDefaults(headers: HeaderList): void {
    if (this.defaults === null) this.defaults = [headers];
    else this.defaults.push(headers);
  }

  override writeHead(
    statusCode: number,
    reasonOrHeaders?: string | OutgoingHttpHeaders | OutgoingHttpHeader[],
    headers?: OutgoingHttpHeaders | OutgoingHttpHeader[],
  ): this {
    const reason = typeof reasonOrHeaders === 'string' ? reasonOrHeaders : undefined;
    const given = typeof reasonOrHeaders === 'string' ? headers : reasonOrHeaders;
    const merged = this.defaults === null ? given : this.withDefaults(given);
    return reason === undefined
      ? super.writeHead(statusCode, merged as OutgoingHttpHeaders)
      : super.writeHead(statusCode, reason, merged as OutgoingHttpHeaders);
  }

  private withDefaults(
    given: OutgoingHttpHeaders | OutgoingHttpHeader[] | undefined,
  ): OutgoingHttpHeaders | OutgoingHttpHeader[] | undefined {
    const lists = this.defaults ?? [];
    this.defaults = null;
    if (Array.isArray(given)) {
      // The raw form (names and values in one list) is never what our routes pass: set the defaults
      // the way node:http merges them with it, one by one.
      const named = new Set<string>();
      for (let i = 0; i < given.length; i += 2) named.add(String(given[i]).toLowerCase());
      for (const list of lists)
        for (const [name, value] of list)
          if (!named.has(name.toLowerCase()) && !this.hasHeader(name)) this.setHeader(name, value);
      return given;
    }
    const merged: OutgoingHttpHeaders = {};
    for (const list of lists)
      for (const [name, value] of list) if (!this.hasHeader(name) && !has(given, name)) merged[name] = value;
    return given === undefined ? merged : Object.assign(merged, given);
  }
}

/** Whether `headers` holds `name` in any case (a few keys: a loop beats lower-casing into a map). */
function has(headers: OutgoingHttpHeaders | undefined, name: string): boolean {
  if (headers === undefined) return false;
  for (const key in headers) {
    if (key.length === name.length && key.toLowerCase() === name.toLowerCase()) return true;
  }
  return false;
}

/**
 * The Node ServerResponse behind this request when served by @hono/node-server (it passes
 * `{ incoming, outgoing }` as the app's env), or null under any other caller (`app.request` in tests).
 */
export function nodeResponse(c: Context): ServerResponse | null {
  const outgoing = (c.env as { outgoing?: unknown } | undefined)?.outgoing;
  return outgoing instanceof ServerResponse ? outgoing : null;
}

/**
 * Sends `headers` on this request's response unless the route set its own. On the server's own
 * response (DefaultHeadersResponse) they are added when the head is written; on another Node response
 * they are set on it before the route runs (Node merges the headers the adapter later passes to
 * writeHead over them, the passed ones taking precedence); without Node (app.request) they are put on
 * the web Response after the route. Touching `c.res.headers` under Node would build a web Headers for
 * every response, which the adapter's fast path avoids.
 */
export async function withDefaultHeaders(
  c: Context,
  headers: HeaderList,
  next: () => Promise<void>,
): Promise<void> {
  const outgoing = nodeResponse(c);
  if (outgoing instanceof DefaultHeadersResponse) {
    outgoing.addDefaults(headers);
    return next();
  }
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
