import { ALL_TOOLS, scopeKey, toolsForScopes } from '../tools/index.js';
import { type CatalogDeps, type CompiledTool, compileTool } from './catalog.js';

/** Every tool compiled once, and the lists of them per distinct scope set, made when first asked. */
export interface CompiledCatalog {
  byName: ReadonlyMap<string, CompiledTool>;
  forScopes(scopes: Iterable<string>): readonly CompiledTool[];
}

export function compileAll(catalog: CatalogDeps): CompiledCatalog {
  const byName = new Map<string, CompiledTool>(ALL_TOOLS.map((def) => [def.name, compileTool(def, catalog)]));
  const byScopes = new Map<string, readonly CompiledTool[]>();
  return {
    byName,
    forScopes(scopes) {
      const key = scopeKey(scopes);
      let tools = byScopes.get(key);
      if (!tools) {
        tools = toolsForScopes(scopes).map((def) => byName.get(def.name) as CompiledTool);
        byScopes.set(key, tools);
      }
      return tools;
    },
  };
}
