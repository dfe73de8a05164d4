import { EXTENSION_ID, registerAppTool } from '@modelcontextprotocol/ext-apps/server';
import type { McpServer } from '@modelcontextprotocol/server';
import type { CompiledTool } from '../catalog/catalog.js';
import type { ViewCatalog } from './catalog.js';

/**
 * Registers tools on a per-request server for a client that declared MCP Apps: a tool with a view
 * goes through the extension's registerAppTool, which lists both `_meta.ui.resourceUri` and the older
 * flat `_meta["ui/resourceUri"]` for hosts that read only that; the rest as usual. The server also
 * states the extension in its capabilities (SEP-2133 extension negotiation: both sides declare it).
 * A client that did not declare the extension never comes here, so its listing has no `_meta` at all.
 */
export function registerToolsWithViews(
  server: McpServer,
  tools: readonly CompiledTool[],
  views: ViewCatalog,
): void {
  server.server.registerCapabilities({ extensions: { [EXTENSION_ID]: {} } });
  for (const tool of tools) {
    const view = views.forTool(tool.name);
    if (view) {
      registerAppTool(
        server,
        tool.name,
        { ...tool.config, _meta: { ui: { resourceUri: view.uri } } },
        tool.handler as never,
      );
    } else {
      server.registerTool(tool.name, tool.config, tool.handler as never);
    }
  }
}
