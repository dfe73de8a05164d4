import {
  type ListResourceTemplatesResult,
  ProtocolError,
  ProtocolErrorCode,
  type ReadResourceResult,
  ResourceNotFoundError,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { CatalogDeps, ToolOutcome } from '../catalog/catalog.js';
import { execute } from '../catalog/execute.js';
import { fencedBlock, UNTRUSTED_NOTICE } from '../results/fence.js';
import { type Reach, toolByName } from '../tools/index.js';
import type { ToolDef } from '../tools/types.js';
import { matchUri, TEMPLATES, type TemplateDef } from './templates.js';

/** Refusals that mean "no such resource for you" rather than "you may not" or "try later". */
const NOT_FOUND = new Set(['not_found']);
const INVALID = new Set(['invalid', 'bad_request', 'unprocessable']);

function toolOf(template: TemplateDef): ToolDef {
  const tool = toolByName(template.tool);
  if (!tool) throw new Error(`resource template ${template.name} names an unknown tool ${template.tool}`);
  return tool;
}

/** A refused or failed read as a JSON-RPC error carrying the tool's sentence. */
function readError(uri: string, outcome: Extract<ToolOutcome, { ok: false }>): Error {
  if (NOT_FOUND.has(outcome.reason)) return new ResourceNotFoundError(uri);
  const code = INVALID.has(outcome.reason)
    ? ProtocolErrorCode.InvalidParams
    : ProtocolErrorCode.InternalError;
  return new ProtocolError(code, outcome.text);
}

/**
 * resources/templates/list and resources/read, built once. The templates a connection sees are those
 * whose read tool it may call (answers computed once per reach, like tools/list). A read runs the
 * template's read tool through `execute`, the same path as a tools/call: scope, caller mapping, team
 * policy, upstream errors and the audit (marked `via: resource`).
 */
export class ResourceReader {
  private readonly lists = new Map<string, ListResourceTemplatesResult>();

  constructor(private readonly deps: CatalogDeps) {
    for (const template of TEMPLATES) toolOf(template);
  }

  templatesFor(reach: Reach): ListResourceTemplatesResult {
    let answer = this.lists.get(reach.key);
    if (!answer) {
      answer = {
        resourceTemplates: TEMPLATES.filter((t) => reach.has(t.tool)).map((t) => ({
          name: t.name,
          title: t.title,
          uriTemplate: t.uriTemplate,
          description: t.description,
          mimeType: t.mimeType,
        })),
      };
      this.lists.set(reach.key, answer);
    }
    return answer;
  }

  async read(uri: string, ctx: ServerContext): Promise<ReadResourceResult> {
    const matched = matchUri(uri);
    if (!matched) throw new ResourceNotFoundError(uri);
    if ('error' in matched) throw new ProtocolError(ProtocolErrorCode.InvalidParams, matched.error);
    const { template, id, query } = matched;
    const outcome = await execute(toolOf(template), template.args(id, query), ctx, this.deps, 'resource');
    if (!outcome.ok) throw readError(uri, outcome);
    if (template.mimeType === 'text/markdown') {
      return { contents: [{ uri, mimeType: template.mimeType, text: outcome.text }] };
    }
    const json = JSON.stringify(outcome.data);
    if (!outcome.untrusted) return { contents: [{ uri, mimeType: template.mimeType, text: json }] };
    // Posts and what upstream wrote from them are read by a model as a tool result's are: the JSON
    // inside the untrusted-content fence, after the notice (so the text is markdown, not bare JSON).
    return { contents: [{ uri, mimeType: 'text/markdown', text: fencedBlock(json, UNTRUSTED_NOTICE) }] };
  }
}
