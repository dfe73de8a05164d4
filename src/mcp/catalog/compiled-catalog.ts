import { ALL_TOOLS, type Reach } from '../tools/index.js';
import { type CatalogDeps, type CompiledTool, compileTool } from './catalog.js';

/**
 * Every tool compiled once, and the lists of them per distinct reach (scopes narrowed by the chosen
 * toolsets), made when first asked.
 */
export interface CompiledCatalog {
  byName: ReadonlyMap<string, CompiledTool>;
  forReach(reach: Reach): readonly CompiledTool[];
}

export function compileAll(catalog: CatalogDeps): CompiledCatalog {
  const byName = new Map<string, CompiledTool>(ALL_TOOLS.map((def) => [def.name, compileTool(def, catalog)]));
  const byReach = new Map<string, readonly CompiledTool[]>();
  return {
    byName,
    forReach(reach) {
      let tools = byReach.get(reach.key);
      if (!tools) {
        tools = reach.tools.map((def) => byName.get(def.name) as CompiledTool);
        byReach.set(reach.key, tools);
      }
      return tools;
    },
  };
}
