/** The tasks extension's identifier (SEP-2663 "Extension Identifier"). */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** Where a 2026-07-28 request carries its client's capabilities (the per-request `_meta` envelope). */
const CLIENT_CAPABILITIES_META_KEY = 'io.modelcontextprotocol/clientCapabilities';

/**
 * The request declared the tasks extension in its own per-request capabilities (SEP-2663 "Capability
 * Negotiation": `_meta["io.modelcontextprotocol/clientCapabilities"].extensions`). Only such a
 * request may be answered with a task: "A server MUST NOT return CreateTaskResult to a client that
 * did not include the extension capability on its request, regardless of prior declarations." The
 * legacy `params.task` member is no opt-in and is not looked at.
 */
export function declaresTasks(body: unknown): boolean {
  const meta = (body as { params?: { _meta?: Record<string, unknown> } } | null)?.params?._meta;
  const capabilities = meta?.[CLIENT_CAPABILITIES_META_KEY] as
    | { extensions?: Record<string, unknown> }
    | undefined;
  const declared = capabilities?.extensions?.[TASKS_EXTENSION];
  return declared !== null && typeof declared === 'object' && !Array.isArray(declared);
}
