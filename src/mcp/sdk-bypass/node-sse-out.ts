import type { ServerResponse } from 'node:http';
import type { TimerWheel, WheelEntry } from '../waiting/timer-wheel.js';
import { EVENT_STREAM_HEADERS } from './sdk-exchange.js';
import { type EventOut, KEEP_ALIVE_COMMENT, keepAliveAt } from './sse-out.js';

/**
 * A waiting call's event stream written straight to Node's ServerResponse: the route then answers with
 * @hono/node-server's RESPONSE_ALREADY_SENT, so no web ReadableStream, no Response and no adapter loop
 * reading them stay alive for the whole wait. Each frame is one `write`, as the adapter writes each chunk it reads, so the chunks on the wire are the same.
 *
 * The head is the one the adapter writes for a Response with these headers as a plain record (what the
 * SDK's transports and ./sse-out.ts return): `writeHead` with the record as it is; the server's
 * response adds the default headers (security headers, X-Request-Id) the route did not set
 * (../../http/node-response.ts:DefaultHeadersResponse). Every client gets the SDK's spelling of these
 * four names, whatever encoding it negotiated: were the head read back as a web Headers, they would be
 * lower-cased and sorted (field names are case-insensitive, RFC 9110 §5.1, but the wire tests compare
 * bytes).
 *
 * A slow client: Node buffers what it cannot send yet. Frames are few and small (progress notifications
 * as a job's status changes, bounded by the wait's limit, and the result), so they are all written;
 * a keep-alive comment is skipped while earlier bytes still wait for the client, since it exists only
 * to keep an idle connection open. Once the client is gone (the response destroyed) nothing is written.
 */
export class NodeSseOut implements EventOut, WheelEntry {
  private open = true;

  constructor(
    private readonly res: ServerResponse,
    private readonly wheel: TimerWheel,
    private readonly keepAliveMs: number,
  ) {
    res.writeHead(200, EVENT_STREAM_HEADERS);
    // At once, as the adapter does for a stream with nothing to send yet: the client sees the answer
    // start (and a 2025-era client waits for these headers before it counts the call as sent).
    res.flushHeaders();
  }

  get isOpen(): boolean {
    return this.open && !this.res.destroyed;
  }

  keepAlive(): void {
    if (this.isOpen) this.wheel.schedule(this, keepAliveAt(this.keepAliveMs));
  }

  write(frame: string): void {
    if (this.isOpen) this.res.write(frame);
  }

  close(): void {
    if (!this.open) return;
    this.open = false;
    this.wheel.cancel(this);
    // A destroyed response takes no more writes (node:http would report one only to a callback).
    if (!this.res.destroyed) this.res.end();
  }

  /** The keep-alive tick. */
  fire(): void {
    if (!this.isOpen) return;
    if (!this.res.writableNeedDrain) this.res.write(KEEP_ALIVE_COMMENT);
    this.wheel.schedule(this, keepAliveAt(this.keepAliveMs));
  }
}
