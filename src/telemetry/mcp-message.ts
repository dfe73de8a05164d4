/*
 * What a span needs of one JSON-RPC message, read without OpenTelemetry: its method, id, target and
 * the trace context the caller put in `params._meta` (MCP 2026-07-28, Basic, `_meta`: `traceparent`,
 * `tracestate` and `baggage` are root keys). Never an argument value.
 */

export interface McpMessage {
  method: string;
  /** The request id as a string; undefined for a notification (JSON-RPC 2.0 §4.1) or a null id. */
  id: string | undefined;
  /** The tool a tools/call names, the prompt a prompts/get names. */
  tool: string | undefined;
  prompt: string | undefined;
  /** The resource a resources/read (subscribe, unsubscribe) names. */
  resourceUri: string | undefined;
  /** `params._meta`'s trace context keys, when it has a traceparent. */
  carrier: Record<string, string> | undefined;
  /** `io.modelcontextprotocol/protocolVersion` in `_meta` (2026-07-28), or initialize's. */
  protocolVersion: string | undefined;
}

const RESOURCE_METHODS = new Set(['resources/read', 'resources/subscribe', 'resources/unsubscribe']);
const TRACE_KEYS = ['traceparent', 'tracestate', 'baggage'] as const;
/** A name that goes into a span name and a metric label: short and plain, or not at all. */
const PLAIN_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

/** The JSON-RPC requests and notifications of a POST body (one, or a batch). */
export function mcpMessages(body: unknown): McpMessage[] {
  const list = Array.isArray(body) ? body : [body];
  const out: McpMessage[] = [];
  for (const item of list) {
    const message = mcpMessage(item);
    if (message) out.push(message);
  }
  return out;
}

export function mcpMessage(item: unknown): McpMessage | undefined {
  if (!item || typeof item !== 'object') return undefined;
  const { method, id, params } = item as { method?: unknown; id?: unknown; params?: unknown };
  if (typeof method !== 'string') return undefined;
  const p = params && typeof params === 'object' ? (params as Record<string, unknown>) : {};
  const meta = p._meta && typeof p._meta === 'object' ? (p._meta as Record<string, unknown>) : {};
  const name = typeof p.name === 'string' && PLAIN_NAME.test(p.name) ? p.name : undefined;
  const version =
    meta['io.modelcontextprotocol/protocolVersion'] ??
    (method === 'initialize' ? p.protocolVersion : undefined);
  return {
    method: method.slice(0, 64),
    id: typeof id === 'string' || typeof id === 'number' ? String(id) : undefined,
    tool: method === 'tools/call' ? name : undefined,
    prompt: method === 'prompts/get' ? name : undefined,
    resourceUri: RESOURCE_METHODS.has(method) && typeof p.uri === 'string' ? p.uri.slice(0, 512) : undefined,
    carrier: typeof meta.traceparent === 'string' ? carrierOf(meta) : undefined,
    protocolVersion: typeof version === 'string' ? version.slice(0, 32) : undefined,
  };
}

function carrierOf(meta: Record<string, unknown>): Record<string, string> {
  const carrier: Record<string, string> = {};
  for (const key of TRACE_KEYS) {
    const value = meta[key];
    if (typeof value === 'string') carrier[key] = value;
  }
  return carrier;
}

/** The outcome a JSON-RPC response tells: its error code, or a tool result's isError. */
export interface ResponseOutcome {
  id: string | undefined;
  errorType: string | undefined;
  rpcCode: string | undefined;
}

export function responseOutcome(item: unknown): ResponseOutcome | undefined {
  if (!item || typeof item !== 'object' || 'method' in item) return undefined;
  const { id, error, result } = item as { id?: unknown; error?: unknown; result?: unknown };
  if (error === undefined && result === undefined) return undefined;
  const key = typeof id === 'string' || typeof id === 'number' ? String(id) : undefined;
  if (error && typeof error === 'object') {
    // Not the message: a validation message may quote what the caller sent.
    const { code } = error as { code?: unknown };
    const rpcCode = typeof code === 'number' ? String(code) : undefined;
    return { id: key, errorType: rpcCode ?? 'jsonrpc_error', rpcCode };
  }
  const isError = (result as { isError?: unknown } | null)?.isError === true;
  return { id: key, errorType: isError ? 'tool_error' : undefined, rpcCode: undefined };
}
