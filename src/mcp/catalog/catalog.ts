import type {
  CallToolResult,
  McpServer,
  ServerContext,
  StandardSchemaWithJSON,
  ToolAnnotations,
} from '@modelcontextprotocol/server';
import type { z } from 'zod';
import type { ToolDef } from '../tools/types.js';
import { execute } from './execute.js';
import { compactJsonSchema } from './json-schema.js';
import { toCallToolResult } from './model-outcome.js';
import type { CatalogDeps } from './types.js';

export type { CallPath, CatalogDeps, ToolOutcome } from './types.js';

const TARGET = 'draft-2020-12';

/**
 * A tool as registered on every per-request McpServer: its JSON Schemas converted once, its handler one
 * function shared by all requests (the caller is read from the request's auth info, never captured).
 * Registering it costs a few object allocations, no schema work: schemas and validators are compiled once, at
 * start.
 */
export interface CompiledTool {
  name: string;
  config: {
    title: string;
    description: string;
    inputSchema: StandardSchemaWithJSON;
    outputSchema: StandardSchemaWithJSON;
    annotations: ToolAnnotations;
  };
  handler: (args: unknown, ctx: ServerContext) => Promise<CallToolResult>;
}

/**
 * The advertised input schema: the tool's strict zod schema as JSON Schema (computed once). Its
 * `validate` lets everything through because the handler validates with the same zod schema itself,
 * so an invalid call is audited as `invalid` and answered with a sentence naming the problem.
 */
function inputSchemaOf(schema: z.ZodType): StandardSchemaWithJSON {
  const json = compactJsonSchema(schema['~standard'].jsonSchema.input({ target: TARGET }));
  return {
    '~standard': {
      version: 1,
      vendor: 'social-intel-mcp',
      validate: (value: unknown) => ({ value }),
      jsonSchema: { input: () => json, output: () => json },
    },
  };
}

/** The output schema: JSON Schema computed once, validation by zod (loose objects: cheap). */
function outputSchemaOf(schema: z.ZodType): StandardSchemaWithJSON {
  const json = compactJsonSchema(schema['~standard'].jsonSchema.output({ target: TARGET }));
  const std = schema['~standard'];
  return {
    '~standard': {
      version: 1,
      vendor: 'social-intel-mcp',
      validate: (value: unknown) => std.validate(value),
      jsonSchema: { input: () => json, output: () => json },
    },
  };
}

export function compileTool(def: ToolDef, deps: CatalogDeps): CompiledTool {
  return {
    name: def.name,
    config: {
      title: def.title,
      description: def.description,
      inputSchema: inputSchemaOf(def.input),
      outputSchema: outputSchemaOf(def.output),
      annotations: listedAnnotations(def.annotations),
    },
    handler: async (args, ctx) => toCallToolResult(await execute(def, args, ctx, deps)),
  };
}

/**
 * The hints as listed: only those that differ from the MCP defaults (readOnlyHint false,
 * destructiveHint true, idempotentHint false, openWorldHint true; the last three meaningful only when
 * readOnlyHint is false — MCP schema, ToolAnnotations). No `title`: the tool's own `title` has
 * replaced it since 2025-06-18. Every listed tool pays for these tokens on every connect.
 */
export function listedAnnotations(a: ToolDef['annotations']): ToolAnnotations {
  if (a.readOnlyHint) return { readOnlyHint: true, ...(a.openWorldHint ? {} : { openWorldHint: false }) };
  return {
    ...(a.destructiveHint ? {} : { destructiveHint: false }),
    ...(a.idempotentHint ? { idempotentHint: true } : {}),
    ...(a.openWorldHint ? {} : { openWorldHint: false }),
  };
}

export function registerTools(server: McpServer, tools: readonly CompiledTool[]): void {
  for (const tool of tools) {
    server.registerTool(tool.name, tool.config, tool.handler as never);
  }
}
