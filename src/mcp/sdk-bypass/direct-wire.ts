import {
  type CallToolResult,
  isJsonContentType,
  SERVER_INFO_META_KEY,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/server';
import type { CompiledTool } from '../catalog/catalog.js';
import { isRecord } from '../results/format.js';
import type { ToolDef } from '../tools/types.js';
import { eraOf, MODERN_REVISION } from './era.js';
import { outputCheckFor } from './output-check.js';

/*
 * The wire of a plain tools/call as the SDK serves it: which requests the direct paths may
 * answer themselves (plainToolCall, asking the SDK's own classifier) and the bytes of the SDK's answer
 * (responseText). ./direct-call.ts answers calls that do not wait with it, ./waiting-direct.ts calls
 * that wait; tests/mcp/sdk-bypass/direct-wire.test.ts and waiting-wire*.test.ts hold both to the SDK's bytes.
 */

/** The 2026-07-28 envelope keys a tools/call may carry in `_meta` (beside a progress token). */
export const ENVELOPE_KEYS = new Set([
  'io.modelcontextprotocol/protocolVersion',
  'io.modelcontextprotocol/clientInfo',
  'io.modelcontextprotocol/clientCapabilities',
]);

/** A tools/call the direct path answers: which era, the JSON-RPC id, and what the call carries. */
export interface PlainCall {
  era: 'modern' | 'legacy';
  id: string | number;
  args: unknown;
  progressToken: string | number | undefined;
}

export const isId = (value: unknown): value is string | number =>
  typeof value === 'string' || Number.isSafeInteger(value);

/** RFC 9110 §5.6.3 optional whitespace trimmed, as the SDK reads its standard headers. */
export const withoutOws = (value: string | null) =>
  value === null ? null : value.replace(/^[ \t]+|[ \t]+$/g, '');

/**
 * A single tools/call of a known tool that the SDK would serve like any other, with nothing the direct
 * path does not reproduce: a JSON-RPC request with `name`, `arguments` (an object) and `_meta` (the
 * 2026-07-28 envelope and a progress token) only, classified by the SDK's own classifier, with the
 * standard headers its 2026-07-28 entry requires (MCP-Protocol-Version, Mcp-Method, Mcp-Name naming
 * the tool) or the Accept and MCP-Protocol-Version its 2025-era transport requires. Anything else (a
 * batch, input responses, an unknown key, a header the SDK would refuse) is null: the SDK answers it.
 */
export function plainToolCall(request: Request, body: unknown, name: string): PlainCall | null {
  if (!isRecord(body) || body.jsonrpc !== '2.0' || body.method !== 'tools/call' || !isId(body.id))
    return null;
  for (const key in body)
    if (key !== 'jsonrpc' && key !== 'id' && key !== 'method' && key !== 'params') return null;
  const params = body.params;
  if (!isRecord(params) || params.name !== name) return null;
  for (const key in params) if (key !== 'name' && key !== 'arguments' && key !== '_meta') return null;
  if (params.arguments !== undefined && !isRecord(params.arguments)) return null;
  let progressToken: string | number | undefined;
  let envelope: Record<string, unknown> | null = null;
  if (params._meta !== undefined) {
    const meta = params._meta;
    if (!isRecord(meta)) return null;
    for (const key in meta) {
      if (key === 'progressToken') {
        if (!isId(meta.progressToken)) return null;
        progressToken = meta.progressToken;
      } else if (ENVELOPE_KEYS.has(key)) {
        envelope ??= {};
        envelope[key] = meta[key];
      } else return null;
    }
  }
  const headers = request.headers;
  if (!isJsonContentType(headers.get('content-type'))) return null;
  const versionHeader = withoutOws(headers.get('mcp-protocol-version'));
  const methodHeader = withoutOws(headers.get('mcp-method'));
  const nameHeader = withoutOws(headers.get('mcp-name'));
  const route = eraOf(versionHeader, methodHeader, envelope);
  const base = { id: body.id, args: params.arguments, progressToken };
  if (route === 'modern') {
    const ok =
      envelope !== null &&
      versionHeader === MODERN_REVISION &&
      methodHeader === 'tools/call' &&
      nameHeader === name;
    return ok ? { era: 'modern', ...base } : null;
  }
  if (route !== 'legacy' || envelope !== null) return null;
  const accept = headers.get('accept') ?? '';
  if (!accept.includes('application/json') || !accept.includes('text/event-stream')) return null;
  if (
    versionHeader !== null &&
    !SUPPORTED_PROTOCOL_VERSIONS.includes(headers.get('mcp-protocol-version') ?? '')
  )
    return null;
  return { era: 'legacy', ...base };
}

/**
 * A content block as the SDK's result schema writes it (its keys in schema order), for the blocks our
 * tools produce: text, and resource links. Anything else is null: the SDK frames that result.
 */
function canonicalBlock(block: unknown): Record<string, unknown> | null {
  if (!isRecord(block)) return null;
  if (block.type === 'text') {
    for (const key in block) if (key !== 'type' && key !== 'text') return null;
    return typeof block.text === 'string' ? { type: 'text', text: block.text } : null;
  }
  if (block.type !== 'resource_link') return null;
  const out: Record<string, unknown> = {};
  let fields = 1;
  for (const key of ['name', 'title', 'uri', 'description', 'mimeType'] as const) {
    const value = block[key];
    if (value === undefined) continue;
    if (typeof value !== 'string') return null;
    out[key] = value;
    fields++;
  }
  if (typeof out.name !== 'string' || typeof out.uri !== 'string') return null;
  let present = 0;
  for (const key in block) if (block[key] !== undefined) present++;
  if (present !== fields) return null;
  out.type = 'resource_link';
  return out;
}

/**
 * The JSON-RPC response the SDK sends for `result`, as text: the result's blocks, structured content
 * and error flag in its schema's order, plus `resultType` and the server's identity on the 2026-07-28
 * era (its encode step), in JSON.stringify's own form; `structuredJson`, when given, is the structured
 * content already written as JSON (the token budget wrote it). Null when the result has anything else, for
 * the SDK to frame.
 */
export function responseText(
  call: PlainCall,
  result: CallToolResult,
  serverInfo: { name: string; version: string },
  structuredJson?: string,
): string | null {
  for (const key in result)
    if (key !== 'content' && key !== 'structuredContent' && key !== 'isError') return null;
  if (!Array.isArray(result.content)) return null;
  const content: Record<string, unknown>[] = [];
  for (const block of result.content) {
    const canonical = canonicalBlock(block);
    if (!canonical) return null;
    content.push(canonical);
  }
  let text = `{"result":{"content":${JSON.stringify(content)}`;
  const structured = result.structuredContent;
  if (structured !== undefined) {
    if (!isRecord(structured)) return null;
    text += `,"structuredContent":${structuredJson ?? JSON.stringify(structured)}`;
  }
  if (result.isError !== undefined) {
    if (typeof result.isError !== 'boolean') return null;
    text += `,"isError":${result.isError}`;
  }
  if (call.era === 'modern')
    text += `,"resultType":"complete","_meta":${JSON.stringify({ [SERVER_INFO_META_KEY]: serverInfo })}`;
  return `${text}},"jsonrpc":"2.0","id":${JSON.stringify(call.id)}}`;
}

/**
 * responseText once the result passes the tool's output schema (its compiled check, else zod, as the
 * SDK would check it); null when it does not or cannot be written here: the SDK then frames the call.
 */
export async function checkedResponseText(
  call: PlainCall,
  result: CallToolResult,
  def: ToolDef,
  tool: CompiledTool,
  serverInfo: { name: string; version: string },
  structuredJson?: string,
): Promise<string | null> {
  const structured = result.structuredContent;
  if (!result.isError && structured !== undefined && outputCheckFor(def.output)?.(structured) !== true) {
    const checked = await tool.config.outputSchema['~standard'].validate(structured);
    if (checked.issues) return null;
  }
  return responseText(call, result, serverInfo, structuredJson);
}
