import { hash } from 'node:crypto';
import { type ReusableAnswer, reusableResponse } from '../../http/compress.js';

/**
 * tools/list answers, replayed. For a given scope set the SDK's answer to tools/list depends only on
 * the request's headers and its body minus the JSON-RPC id, so the first answer the SDK gives for
 * such a request (status 200) is kept as bytes, split around the id, and later identical requests get
 * those bytes with their own id. This skips building, serializing and re-validating the same
 * catalog on every connect. Anything unusual (batches, cursors, other headers) simply misses and is
 * served by the SDK, which also answers every first request, errors included.
 *
 * The whole answer for an id is kept too (clients number their requests alike: a connect's tools/list
 * is id 1 or 2 for every SDK client), with its compressed forms once a client has asked for them
 * (src/http/compress.ts, reusableResponse): a replay then neither copies the answer nor compresses it.
 */
interface Entry {
  status: number;
  /**
   * A plain record, frozen: @hono/node-server writes a Response built from a record straight to
   * `writeHead` (it copies before adding Content-Length), where pairs or a Headers object would first
   * be turned into a web Headers and back.
   */
  headers: Readonly<Record<string, string>>;
  /** Kept as UTF-8 bytes: a replay then copies bytes instead of re-encoding and measuring a string. */
  before: Buffer;
  after: Buffer;
}

const HEADERS = ['content-type', 'accept', 'mcp-protocol-version', 'mcp-method', 'mcp-name'] as const;

/** Whole answers kept (each tens of KB, and its compressed forms): the ids clients reuse are few. */
const MAX_ANSWERS = 64;
/**
 * Bytes the listings and the whole answers may hold, each (an answer counted twice: its compressed
 * forms are no larger than it). Requests are keyed by a fixed-size digest, so what a caller sends adds
 * nothing beyond these budgets.
 */
const ENTRY_BYTES = 4 * 1024 * 1024;
const ANSWER_BYTES = 4 * 1024 * 1024;
/** An id whose JSON is longer is answered from its listing but its whole answer is not kept. */
const KEPT_ID_LENGTH = 64;

export class ToolsListCache {
  private readonly entries = new Map<string, Entry>();
  /** Whole answers by entry key and id, oldest first. */
  private readonly answers = new Map<string, ReusableAnswer>();
  private entryBytes = 0;
  private answerBytes = 0;

  constructor(private readonly maxEntries = 256) {}

  /** The cache key of a replayable tools/list request, or null when it is not one. */
  keyFor(request: Request, body: unknown, scopeKey: string): { key: string; id: string | number } | null {
    if (request.method !== 'POST' || !body || typeof body !== 'object' || Array.isArray(body)) return null;
    const message = body as { method?: unknown; id?: unknown; params?: { cursor?: unknown } };
    if (message.method !== 'tools/list') return null;
    if (typeof message.id !== 'string' && typeof message.id !== 'number') return null;
    if (message.params?.cursor !== undefined) return null;
    // Header values hold no line breaks (RFC 9110 §5.5): one line each, marked present or absent.
    let key = scopeKey;
    for (const name of HEADERS) {
      const value = request.headers.get(name);
      key += value === null ? '\n-' : `\n+${value}`;
    }
    const { id, ...rest } = message;
    const text = `${key}\n${JSON.stringify(rest)}`;
    return { key: hash('sha256', text, 'base64url'), id };
  }

  replay(key: string, id: string | number): Response | null {
    const entry = this.entries.get(key);
    if (!entry) return null;
    const idText = JSON.stringify(id);
    const answerKey = `${idText}\n${key}`;
    let answer = this.answers.get(answerKey);
    if (!answer) {
      answer = {
        status: entry.status,
        headers: entry.headers,
        body: Buffer.concat([entry.before, Buffer.from(idText), entry.after]),
        coded: new Map(),
      };
      if (idText.length <= KEPT_ID_LENGTH) this.keepAnswer(answerKey, answer);
    }
    return reusableResponse(answer);
  }

  private keepAnswer(answerKey: string, answer: ReusableAnswer): void {
    const bytes = 2 * answer.body.length;
    while (
      this.answers.size > 0 &&
      (this.answers.size >= MAX_ANSWERS || this.answerBytes + bytes > ANSWER_BYTES)
    ) {
      const [oldestKey, oldest] = this.answers.entries().next().value as [string, ReusableAnswer];
      this.answers.delete(oldestKey);
      this.answerBytes -= 2 * oldest.body.length;
    }
    if (bytes > ANSWER_BYTES) return;
    this.answers.set(answerKey, answer);
    this.answerBytes += bytes;
  }

  /**
   * Keeps a 200 answer when the id can be found exactly once, at the end of the message. A 2025-era
   * answer, which the SDK sends as an event stream of one message, is kept (and answered from now on)
   * as that message in JSON: the 2025 transport lets a server answer a request with either, and the
   * client must take both (MCP 2025-06-18, Transports, "Sending Messages to the Server"). A listing
   * sends nothing before its result, and JSON can be compressed, which
   * an event stream is not (src/http/compress.ts).
   */
  async capture(key: string, id: string | number, response: Response): Promise<Response> {
    if (response.status !== 200 || !response.body) return response;
    const sent = await response.text();
    const message = isEventStream(response) ? onlyMessage(sent) : null;
    const text = message ?? sent;
    // No Content-Length: the replays' ids differ in length, and the adapter counts the bytes it sends.
    const headers: Readonly<Record<string, string>> = Object.freeze(
      message !== null
        ? { 'content-type': 'application/json' }
        : Object.fromEntries([...response.headers].filter(([name]) => name !== 'content-length')),
    );
    const marker = `"id":${JSON.stringify(id)}`;
    const at = text.lastIndexOf(marker);
    const after = at < 0 ? '' : text.slice(at + marker.length);
    // The id closes the JSON-RPC object: only `}` and SSE framing may follow it.
    if (at >= 0 && text.indexOf(marker) === at && /^}\s*$/.test(after)) {
      const entry: Entry = {
        status: 200,
        headers,
        before: Buffer.from(`${text.slice(0, at)}"id":`),
        after: Buffer.from(after),
      };
      const bytes = entry.before.length + entry.after.length;
      if (this.entries.size >= this.maxEntries || this.entryBytes + bytes > ENTRY_BYTES) {
        this.entries.clear();
        this.answers.clear();
        this.entryBytes = 0;
        this.answerBytes = 0;
      }
      if (!this.entries.has(key) && bytes <= ENTRY_BYTES) {
        this.entries.set(key, entry);
        this.entryBytes += bytes;
      }
    }
    return new Response(text, { status: response.status, headers });
  }

  get size(): number {
    return this.entries.size;
  }
}

function isEventStream(response: Response): boolean {
  return /^text\/event-stream\b/i.test(response.headers.get('content-type') ?? '');
}

/** The JSON of an event stream that is exactly one `message` event on one data line, or null. */
function onlyMessage(stream: string): string | null {
  const match = /^event: message\ndata: ([^\n]*)\n\n$/.exec(stream);
  return match?.[1] ?? null;
}
