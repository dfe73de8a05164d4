import type { CompleteRequest, CompleteResult, ServerContext } from '@modelcontextprotocol/server';
import type { CatalogDeps } from '../catalog/catalog.js';
import { execute } from '../catalog/execute.js';
import { isRecord } from '../results/format.js';
import { toolByName } from '../tools/index.js';
import { TEMPLATES } from './templates.js';

/** MCP completion/complete answers hold at most 100 values. */
const MAX_VALUES = 100;

const EMPTY: CompleteResult = { completion: { values: [], total: 0, hasMore: false } };

export function completionOf(candidates: readonly string[], prefix: string): CompleteResult {
  const matching = candidates.filter((c) => c.toLowerCase().startsWith(prefix.toLowerCase()));
  return {
    completion: {
      values: matching.slice(0, MAX_VALUES),
      total: matching.length,
      hasMore: matching.length > MAX_VALUES,
    },
  };
}

/**
 * completion/complete for our resource templates' variables (MCP "Completion"). `{id}` is completed
 * from the caller's own recent searches or runs, read with the list tool through `execute`: the same
 * scopes, caller mapping and team policy as calling that tool, so a completion never shows an id the
 * caller could not list. Other variables complete from their fixed values. Prompt arguments are
 * completed by the prompts' own values (`promptValues`).
 */
export async function completeArgument(
  params: CompleteRequest['params'],
  ctx: ServerContext,
  deps: CatalogDeps,
  promptValues: (prompt: string, argument: string) => readonly string[],
): Promise<CompleteResult> {
  const { ref, argument } = params;
  if (ref.type === 'ref/prompt') return completionOf(promptValues(ref.name, argument.name), argument.value);
  const template = TEMPLATES.find((t) => t.uriTemplate === ref.uri);
  if (!template) return EMPTY;
  const fixed = template.values?.[argument.name];
  if (fixed) return completionOf(fixed, argument.value);
  if (argument.name !== 'id') return EMPTY;
  const listTool = toolByName(template.idsFrom.tool);
  if (!listTool) return EMPTY;
  const outcome = await execute(listTool, template.idsFrom.args, ctx, deps, 'completion');
  if (!outcome.ok) return EMPTY;
  const list = outcome.data[template.idsFrom.list];
  const ids = Array.isArray(list)
    ? list
        .filter(isRecord)
        .map((item) => String(item.id ?? ''))
        .filter(Boolean)
    : [];
  return completionOf(ids, argument.value);
}
