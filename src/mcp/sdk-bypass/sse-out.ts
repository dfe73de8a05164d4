import { alignUp, type TimerWheel, type WheelEntry } from '../waiting/timer-wheel.js';

const encoder = new TextEncoder();

/** The comment the SDK's streams send every keep-alive interval. */
export const KEEP_ALIVE_COMMENT = ': keepalive\n\n';

/**
 * When the next keep-alive comment of a stream goes: `keepAliveMs` from now, moved up to the next
 * fifteenth of it (1 s for the 15 s default), so the comments of every stream due in the same second go
 * out in one wake-up (../waiting/timer-wheel.ts:alignUp). A comment exists only to keep an idle connection open
 * through proxies; a second late changes nothing.
 */
export function keepAliveAt(keepAliveMs: number, now = Date.now()): number {
  return alignUp(now + keepAliveMs, keepAliveMs / 15);
}

/** One server-sent event carrying a JSON-RPC message, as the SDK's transports frame them. */
export function messageFrame(json: string): string {
  return `event: message\ndata: ${json}\n\n`;
}

/**
 * Reads a server-sent event stream frame by frame (each ends with a blank line), calling `onFrame`
 * with every complete frame, terminator included. Resolves when the stream ends.
 */
export async function readFrames(
  body: ReadableStream<Uint8Array> | null,
  onFrame: (frame: string) => void,
): Promise<void> {
  if (!body) return;
  const decoder = new TextDecoder();
  let buffered = '';
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    buffered += done ? decoder.decode() : decoder.decode(value, { stream: true });
    let end = buffered.indexOf('\n\n');
    while (end >= 0) {
      onFrame(buffered.slice(0, end + 2));
      buffered = buffered.slice(end + 2);
      end = buffered.indexOf('\n\n');
    }
    if (done) break;
  }
  if (buffered) onFrame(buffered);
}

/**
 * An event stream a call answered outside the SDK writes its frames to: SseOut below (a web stream the
 * route returns) or ./node-sse-out.ts:NodeSseOut (Node's response, written directly).
 */
export interface EventOut {
  readonly isOpen: boolean;
  write(frame: string): void;
  close(): void;
  /** Starts the keep-alive comments: the SDK's, every `keepAliveMs` while open. */
  keepAlive(): void;
}

/**
 * The response stream of a waiting call answered outside the SDK: frames are written to it as they
 * come, and once `keepAlive()` is called it sends the same keep-alive comment as the SDK's streams
 * every `keepAliveMs` while open (a timer-wheel entry, not an interval per stream).
 */
export class SseOut implements EventOut, WheelEntry {
  readonly stream: ReadableStream<Uint8Array>;
  private controller: ReadableStreamDefaultController<Uint8Array> | null = null;
  private open = true;

  constructor(
    private readonly wheel: TimerWheel,
    private readonly keepAliveMs: number,
    onCancel: () => void,
  ) {
    this.stream = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.controller = controller;
      },
      cancel: () => {
        this.open = false;
        this.wheel.cancel(this);
        onCancel();
      },
    });
  }

  /** Starts the keep-alive comments (the SDK's stream had its own until the call detached). */
  keepAlive(): void {
    if (this.open) this.wheel.schedule(this, keepAliveAt(this.keepAliveMs));
  }

  get isOpen(): boolean {
    return this.open;
  }

  write(frame: string): void {
    if (!this.open || !this.controller) return;
    try {
      this.controller.enqueue(encoder.encode(frame));
    } catch {
      this.open = false;
    }
  }

  close(): void {
    if (!this.open) return;
    this.open = false;
    this.wheel.cancel(this);
    try {
      this.controller?.close();
    } catch {
      // already closed by the reader's side
    }
  }

  /** The keep-alive tick (the SDK's own streams write exactly this comment). */
  fire(): void {
    if (!this.open) return;
    this.write(KEEP_ALIVE_COMMENT);
    this.wheel.schedule(this, keepAliveAt(this.keepAliveMs));
  }
}
