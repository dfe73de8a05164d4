import { toolByName } from '../tools/index.js';
import {
  EVERY_TOOL,
  narrow,
  outsideReason,
  outsideSelectionText,
  parseToolsets,
  selects,
  TOOLSETS,
  type ToolSelection,
} from '../tools/toolsets.js';
import type { ToolRefusal } from './scope-check.js';

/** The path that makes a connection read-only, beside `/mcp?readonly=1` and `X-MCP-Readonly`. */
export const READ_ONLY_PATH = '/mcp/readonly';

const YES = new Set(['1', 'true', 'yes', 'on']);
const NO = new Set(['0', 'false', 'no', 'off', '']);

export type AskedSelection = { ok: true; selection: ToolSelection } | { ok: false; message: string };

/**
 * The selection a request asks for: the URL (`?toolsets=a,b`, `?readonly=1`, the /mcp/readonly path)
 * and the headers (`X-MCP-Toolsets`, `X-MCP-Readonly`), the narrowest of them. A name or value that
 * is not one of ours is refused rather than ignored, so a typo never silently hides or shows tools.
 */
export function askedSelection(url: URL, header: (name: string) => string | undefined): AskedSelection {
  let selection: ToolSelection =
    url.pathname === READ_ONLY_PATH ? { toolsets: null, readOnly: true } : EVERY_TOOL;
  const sources: Array<[string, string | null | undefined, string | null | undefined]> = [
    ['the toolsets parameter', url.searchParams.get('toolsets'), url.searchParams.get('readonly')],
    ['the X-MCP-Toolsets header', header('x-mcp-toolsets'), header('x-mcp-readonly')],
  ];
  for (const [where, toolsets, readOnly] of sources) {
    if (toolsets !== null && toolsets !== undefined) {
      const parsed = parseToolsets(toolsets);
      if (!parsed.ok)
        return {
          ok: false,
          message: `Unknown toolset "${parsed.unknown}" in ${where}. The toolsets are ${TOOLSETS.join(', ')}.`,
        };
      selection = narrow(selection, { toolsets: parsed.toolsets, readOnly: false });
    }
    if (readOnly !== null && readOnly !== undefined) {
      const value = readOnly.trim().toLowerCase();
      if (!YES.has(value) && !NO.has(value))
        return { ok: false, message: 'readonly (or X-MCP-Readonly) must be true or false.' };
      if (YES.has(value)) selection = narrow(selection, { toolsets: null, readOnly: true });
    }
  }
  return { ok: true, selection };
}

/** A tools/call the selection leaves out, and why. */
export interface OutsideSelection {
  tool: string;
  reason: 'read_only' | 'toolset';
  toolset: string;
  refusal: ToolRefusal;
}

/**
 * A single tools/call naming one of our tools that the connection's selection leaves out: answered
 * with a tool result naming the toolset (or read-only), before anything reaches upstream and before
 * any scope step-up (choosing fewer tools is no reason to ask for more permissions).
 */
export function outsideSelection(body: unknown, selection: ToolSelection): OutsideSelection | null {
  if (selection === EVERY_TOOL || !body || typeof body !== 'object' || Array.isArray(body)) return null;
  const { method, params } = body as { method?: unknown; params?: { name?: unknown } };
  if (method !== 'tools/call' || typeof params?.name !== 'string') return null;
  const def = toolByName(params.name);
  if (!def || selects(selection, def)) return null;
  return {
    tool: def.name,
    reason: outsideReason(selection, def),
    toolset: def.toolset,
    refusal: { content: [{ type: 'text', text: outsideSelectionText(selection, def) }], isError: true },
  };
}
