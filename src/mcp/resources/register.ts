import type { McpServer, ServerContext } from '@modelcontextprotocol/server';
import type { ViewCatalog } from '../apps/catalog.js';
import { reachOfAuth } from '../catalog/call-env.js';
import type { CatalogDeps } from '../catalog/catalog.js';
import type { PromptCatalog } from '../prompts/serve.js';
import type { Reach } from '../tools/index.js';
import { completeArgument } from './complete.js';
import type { ResourceReader } from './read.js';

export interface Surface {
  resources: ResourceReader;
  prompts: PromptCatalog;
  /** The MCP Apps views (`ui://` resources). */
  views: ViewCatalog;
  deps: CatalogDeps;
}

function reachOf(ctx: ServerContext): Reach {
  return reachOfAuth(ctx.http?.authInfo);
}

/**
 * Puts resources, prompts and completion on a per-request server. Their answers and handlers are
 * built once (the surface); this only sets six request handlers on the low-level server, where the
 * SDK's registerResource/registerPrompt would rebuild listings and argument schemas on every request
 * and match templates with a pattern that wants every query parameter, in order.
 */
export function registerSurface(server: McpServer, surface: Surface, withViews = false): void {
  const low = server.server;
  low.registerCapabilities({ resources: {}, prompts: {}, completions: {} });
  // Views are listed only to a client that declared MCP Apps; any client may read one by its URI
  // (a 2025-era host may read it from an instance that did not see its initialize).
  low.setRequestHandler('resources/list', (_request, ctx) =>
    withViews ? surface.views.listFor(reachOf(ctx)) : { resources: [] },
  );
  low.setRequestHandler('resources/templates/list', (_request, ctx) =>
    surface.resources.templatesFor(reachOf(ctx)),
  );
  low.setRequestHandler(
    'resources/read',
    (request, ctx) =>
      surface.views.read(request.params.uri) ?? surface.resources.read(request.params.uri, ctx),
  );
  low.setRequestHandler('prompts/list', (_request, ctx) => surface.prompts.listFor(reachOf(ctx)));
  low.setRequestHandler('prompts/get', (request, ctx) =>
    surface.prompts.get(request.params.name, request.params.arguments, reachOf(ctx)),
  );
  low.setRequestHandler('completion/complete', (request, ctx) =>
    completeArgument(request.params, ctx, surface.deps, (p, a) => surface.prompts.values(p, a)),
  );
}
