import type {
  CallToolResult,
  McpServer,
  ServerContext,
  StandardSchemaWithJSON,
  ToolAnnotations,
} from '@modelcontextprotocol/server';
import type { z } from 'zod';
import type { ToolCallAudit } from '../audit/tool-calls.js';
import type { Logger } from '../logger.js';
import type { PolicyCall, PolicyGate, PolicyPass } from '../teams/tool-policy.js';
import type { UpstreamClient } from '../upstream/client.js';
import type { Caller } from './caller.js';
import type { InflightCalls } from './inflight.js';
import { compactJsonSchema } from './json-schema.js';
import { capResult, describeTruncation } from './shape.js';
import { auditStatus, errorMessage } from './tool-errors.js';
import { UNTRUSTED_NOTICE } from './tools/common.js';
import type { ToolDef, ToolOptions } from './tools/types.js';
import { progressReporter } from './wait.js';

const TARGET = 'draft-2020-12';

/**
 * A tool as registered on every per-request McpServer: its JSON Schemas converted once, its handler
 * one function shared by all requests (the caller is read from the request's auth info, never
 * captured). Registering it costs a few object allocations, no schema work (DESIGN.md §3).
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

export interface CatalogDeps {
  upstream: UpstreamClient;
  publicUrl: string;
  options: ToolOptions;
  audit: (event: ToolCallAudit) => void;
  logger: Logger;
  inflight: InflightCalls;
  /**
   * Team policy checked just before a call goes upstream (src/teams/tool-policy.ts): a refusal becomes
   * an isError result (audited as `refused` with its reason); a pass says how to run the call and is
   * finished once the call's audit row is written.
   */
  teamPolicy?: (call: PolicyCall) => Promise<PolicyGate>;
  /** Aborted at shutdown: waiting calls return their handles (ToolContext.stopWaiting). */
  stopWaiting: AbortSignal;
  /** Tool calls running now, so shutdown can let them answer before the exchanges close. */
  running: Set<Promise<unknown>>;
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
      annotations: { title: def.title, ...def.annotations },
    },
    handler: (args, ctx) => execute(def, args, ctx, deps),
  };
}

export function registerTools(server: McpServer, tools: readonly CompiledTool[]): void {
  for (const tool of tools) {
    server.registerTool(tool.name, tool.config, tool.handler as never);
  }
}

function errorResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

export function callerOf(ctx: ServerContext): Caller | undefined {
  const extra = ctx.http?.authInfo?.extra as { caller?: Caller } | undefined;
  return extra?.caller;
}

async function execute(
  def: ToolDef,
  rawArgs: unknown,
  ctx: ServerContext,
  deps: CatalogDeps,
): Promise<CallToolResult> {
  const started = performance.now();
  const caller = callerOf(ctx);
  const audit = (status: string, detail?: Record<string, unknown>) =>
    deps.audit({
      userId: caller?.userId ?? null,
      workspaceId: caller?.workspaceId ?? null,
      clientId: caller?.clientId ?? null,
      tool: def.name,
      status,
      durationMs: performance.now() - started,
      ...(detail ? { detail } : {}),
    });

  if (!caller) {
    audit('error', { reason: 'no_caller' });
    return errorResult(
      'This request carries no signed-in caller; reconnect to the server and sign in again.',
    );
  }
  if (!caller.scopes.includes(def.scope)) {
    audit('error', { reason: 'insufficient_scope' });
    return errorResult(
      `${def.name} needs the ${def.scope} permission, which this connection was not granted.`,
    );
  }
  const parsed = def.input.safeParse(rawArgs ?? {});
  if (!parsed.success) {
    audit('invalid');
    const issues = parsed.error.issues
      .map((i) => `${i.path.length ? `${i.path.join('.')}: ` : ''}${i.message}`)
      .join('; ');
    return errorResult(
      `Invalid arguments for ${def.name}: ${issues}. Nothing was sent upstream; correct the arguments and call again.`,
    );
  }
  if (!caller.upstream) {
    audit('error', { reason: 'no_credentials' });
    return errorResult(
      `No upstream API credentials are linked to this workspace yet. Ask the user to link their API token and user id at ${deps.publicUrl}/account/credentials, then try again.`,
    );
  }

  const progressToken = ctx.mcpReq._meta?.progressToken;
  const send =
    progressToken === undefined
      ? null
      : (progress: number, message: string) => {
          ctx.mcpReq
            .notify({
              method: 'notifications/progress',
              params: { progressToken, progress, total: 100, message },
            })
            .catch(() => {});
        };

  // A legacy client's cancel arrives in another POST; the registry lets it reach this call.
  const registered = deps.inflight.register(caller.grantId, ctx.mcpReq.id);
  const signal = AbortSignal.any([ctx.mcpReq.signal, registered.signal]);
  const creds = caller.upstream;
  let pass: PolicyPass | null = null;
  let status = 'error';
  try {
    const gate = deps.teamPolicy
      ? await deps.teamPolicy({
          caller,
          tool: def,
          args: parsed.data as Record<string, unknown>,
          upstream: deps.upstream,
          creds,
          signal,
        })
      : null;
    if (gate?.refused) {
      status = 'refused';
      audit(status, { reason: gate.refused.reason, ...gate.refused.detail });
      return errorResult(gate.refused.message);
    }
    pass = gate;
    const execution = def.run(pass ? pass.args : parsed.data, {
      upstream: pass ? pass.upstream : deps.upstream,
      creds,
      signal,
      stopWaiting: deps.stopWaiting,
      progress: progressReporter(send),
      options: deps.options,
    });
    deps.running.add(execution);
    const out = await execution.finally(() => deps.running.delete(execution));
    const shaped = capResult(out.data, deps.options.maxResultBytes);
    const parts = [out.summary];
    const truncation = describeTruncation(shaped.truncated, deps.options.maxResultBytes);
    if (truncation) parts.push(truncation);
    if (out.untrusted) parts.push(UNTRUSTED_NOTICE);
    parts.push(JSON.stringify(shaped.data));
    status = signal.aborted ? 'cancelled' : 'ok';
    audit(status);
    return { content: [{ type: 'text', text: parts.join('\n\n') }], structuredContent: shaped.data };
  } catch (error) {
    status = auditStatus(error);
    const kind = (error as { kind?: unknown }).kind;
    audit(status, typeof kind === 'string' ? { error: kind } : undefined);
    if (status === 'error' && typeof kind !== 'string') {
      deps.logger.error({ err: error, tool: def.name }, 'tool failed');
    }
    return errorResult(errorMessage(error, def, deps.publicUrl));
  } finally {
    // After the audit row: from now on it, not the reservation, counts the call against the cap.
    pass?.finish(status);
    registered.release();
  }
}
