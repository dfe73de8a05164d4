/**
 * tools/list answers, replayed. For a given scope set the SDK's answer to tools/list depends only on
 * the request's headers and its body minus the JSON-RPC id, so the first answer the SDK gives for
 * such a request (status 200) is kept as bytes, split around the id, and later identical requests get
 * those bytes with their own id. This skips building, serializing (~50 KB) and re-validating the same
 * catalog on every connect. Anything unusual (batches, cursors, other headers) simply misses and is
 * served by the SDK, which also answers every first request, errors included.
 */
interface Entry {
  status: number;
  /**
   * A plain record, frozen: @hono/node-server writes a Response built from a record straight to
   * `writeHead` (it copies before adding Content-Length), where pairs or a Headers object would first
   * be turned into a web Headers and back.
   */
  headers: Readonly<Record<string, string>>;
  /** Kept as UTF-8 bytes: a replay then copies ~50 KB instead of re-encoding and measuring a string. */
  before: Buffer;
  after: Buffer;
}

const HEADERS = ['content-type', 'accept', 'mcp-protocol-version', 'mcp-method', 'mcp-name'] as const;

export class ToolsListCache {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly maxEntries = 256) {}

  /** The cache key of a replayable tools/list request, or null when it is not one. */
  keyFor(request: Request, body: unknown, scopeKey: string): { key: string; id: string | number } | null {
    if (request.method !== 'POST' || !body || typeof body !== 'object' || Array.isArray(body)) return null;
    const message = body as { method?: unknown; id?: unknown; params?: { cursor?: unknown } };
    if (message.method !== 'tools/list') return null;
    if (typeof message.id !== 'string' && typeof message.id !== 'number') return null;
    if (message.params?.cursor !== undefined) return null;
    const headers = HEADERS.map((h) => request.headers.get(h));
    const key = JSON.stringify([scopeKey, headers, { ...message, id: null }]);
    return { key, id: message.id };
  }

  replay(key: string, id: string | number): Response | null {
    const entry = this.entries.get(key);
    if (!entry) return null;
    return new Response(Buffer.concat([entry.before, Buffer.from(JSON.stringify(id)), entry.after]), {
      status: entry.status,
      headers: entry.headers,
    });
  }

  /** Keeps a 200 answer when the id can be found exactly once, at the end of the message. */
  async capture(key: string, id: string | number, response: Response): Promise<Response> {
    if (response.status !== 200 || !response.body) return response;
    const text = await response.text();
    const headers = Object.freeze(Object.fromEntries(response.headers));
    const marker = `"id":${JSON.stringify(id)}`;
    const at = text.lastIndexOf(marker);
    const after = at < 0 ? '' : text.slice(at + marker.length);
    // The id closes the JSON-RPC object: only `}` and SSE framing may follow it.
    if (at >= 0 && text.indexOf(marker) === at && /^}\s*$/.test(after)) {
      if (this.entries.size >= this.maxEntries) this.entries.clear();
      this.entries.set(key, {
        status: 200,
        headers,
        before: Buffer.from(`${text.slice(0, at)}"id":`),
        after: Buffer.from(after),
      });
    }
    return new Response(text, { status: response.status, headers });
  }

  get size(): number {
    return this.entries.size;
  }
}
