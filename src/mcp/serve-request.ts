import type { ServerResponse } from 'node:http';
import type { AuthInfo, CallToolResult } from '@modelcontextprotocol/server';
import type { ViewNegotiation } from './apps/negotiate.js';
import type { Caller } from './auth/caller.js';
import { reachOfAuth } from './catalog/call-env.js';
import type { CompiledTool } from './catalog/catalog.js';
import type { CompiledCatalog } from './catalog/compiled-catalog.js';
import { PerRequestServers } from './per-request-server.js';
import type { SdkBypass } from './sdk-bypass/bypass.js';
import { type BypassMode, choosePath, type RequestFacts, taskGetPath } from './sdk-bypass/paths.js';
import type { ToolsListCache } from './sdk-bypass/tools-list-cache.js';
import { requiredScopeForTool, toolByName } from './tools/index.js';

export interface RequestServerParts {
  compiled: CompiledCatalog;
  views: ViewNegotiation;
  listCache: ToolsListCache;
  servers: PerRequestServers;
  bypass: SdkBypass;
  mode: BypassMode;
  /** This server keeps tasks (../tasks/): the extension's requests are served. */
  tasks: boolean;
}

/**
 * Serves one checked request: a plain tasks/get from the task it reads, a tools/list replayed from the
 * cache, a tools/call by the path
 * ./sdk-bypass/paths.ts:choosePath picks, anything else by the SDK with every tool the caller may list.
 */
export function requestServer(parts: RequestServerParts) {
  const { compiled, servers, listCache } = parts;
  return async (
    request: Request,
    authInfo: AuthInfo,
    body: unknown,
    caller: Caller | undefined,
    outgoing: ServerResponse | undefined,
  ): Promise<Response> => {
    const taskGet = taskGetPath(request, body, parts.tasks, parts.mode);
    if (taskGet) return parts.bypass.taskGet(taskGet, caller);
    const reach = reachOfAuth(authInfo);
    if (body === undefined)
      return servers.serve(request, authInfo, undefined, {
        kind: 'surface',
        tools: compiled.forReach(reach),
        views: false,
      });
    const views = parts.views.declared(body, caller);
    // The listing depends on the scopes and chosen toolsets, and on whether the client renders views
    // (a 2025-era client's body does not say so: it said it at initialize).
    const cacheable = listCache.keyFor(request, body, `${reach.key}${views ? ' +views' : ''}`);
    const hit = cacheable && listCache.replay(cacheable.key, cacheable.id);
    if (hit) return hit;
    const facts = requestFacts(request, body, authInfo, compiled, caller, parts.tasks);
    const decision = choosePath(facts, parts.mode);
    // The SDK keys what it registers by this request's auth info object: each request gets its own.
    const own = { ...authInfo };
    const tool = facts.tool as CompiledTool;
    switch (decision.path) {
      case 'sdk': {
        const plan = { kind: 'surface', tools: compiled.forReach(reach), views } as const;
        const response = await servers.serve(request, own, body, plan);
        return cacheable ? listCache.capture(cacheable.key, cacheable.id, response) : response;
      }
      case 'sdk-one-tool':
        return servers.serve(request, own, body, { kind: 'one-tool', tool });
      case 'sdk-refusal': {
        const refusing = PerRequestServers.refusing(tool, facts.refusal as CallToolResult);
        return servers.serve(request, own, body, { kind: 'one-tool', tool: refusing });
      }
      default:
        return parts.bypass.serve(decision, facts, own, outgoing);
    }
  };
}

/** The tool a single (non-batch) tools/call names, and whether the caller may run it. */
function requestFacts(
  request: Request,
  body: unknown,
  authInfo: AuthInfo,
  compiled: CompiledCatalog,
  caller: Caller | undefined,
  tasks: boolean,
): RequestFacts {
  const target = toolCallTarget(body);
  const def = target === null ? undefined : toolByName(target);
  const scope = target === null ? undefined : requiredScopeForTool(target);
  return {
    request,
    body,
    def,
    tool: def ? compiled.byName.get(def.name) : undefined,
    granted: scope !== undefined && authInfo.scopes.includes(scope),
    refusal: (authInfo.extra as { refusal?: CallToolResult } | undefined)?.refusal,
    caller,
    tasks,
  };
}

/** The tool a single (non-batch) tools/call names, or null. */
function toolCallTarget(body: unknown): string | null {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return null;
  const { method, params } = body as { method?: unknown; params?: { name?: unknown } };
  return method === 'tools/call' && typeof params?.name === 'string' ? params.name : null;
}
