import type {
  CallToolResult,
  McpServer,
  ServerContext,
  StandardSchemaWithJSON,
  ToolAnnotations,
} from '@modelcontextprotocol/server';
import type { z } from 'zod';
import type { ToolCallAudit } from '../../audit/tool-calls.js';
import type { Logger } from '../../logger.js';
import type { PolicyCall, PolicyGate, PolicyPass } from '../../teams/tool-policy.js';
import type { UpstreamClient } from '../../upstream/client.js';
import { auditIdentity } from '../auth/caller.js';
import type { CancellationRegistry } from '../cancellation/inflight.js';
import { cleanDeep, fencedBlock, UNTRUSTED_NOTICE } from '../results/fence.js';
import { dropNulls } from '../results/format.js';
import { capResult, describeTruncation, type Shaped } from '../results/shape.js';
import { outsideReason, outsideSelectionText, selects } from '../tools/toolsets.js';
import type { SubmitReuse, ToolDef, ToolOptions, ToolOutput } from '../tools/types.js';
import { progressReporter } from '../waiting/wait.js';
import type { WaitScheduler } from '../waiting/wait-scheduler.js';
import { type CallEnv, callEnvOf } from './call-env.js';
import { compactJsonSchema } from './json-schema.js';
import { auditStatus, type CredentialSource, credentialSource, errorMessage } from './tool-errors.js';

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
  /** The upstream token header's name (UPSTREAM_TOKEN_HEADER), which tool errors name to header callers. */
  tokenHeader: string;
  options: ToolOptions;
  /** Writes the call's audit row; resolves once written (never rejects: a failure is logged). */
  audit: (event: ToolCallAudit) => Promise<void>;
  logger: Logger;
  inflight: CancellationRegistry;
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
  /** The one scheduler of every waiting call (../waiting/wait-scheduler.ts). */
  waits: WaitScheduler;
  /** Reuse of identical recent submits (../reuse/); absent, every submit creates its work. */
  reuse?: SubmitReuse;
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

/**
 * What a tool call came to, before it is a tools/call answer or a resources/read answer (resources
 * run through here too, so one place decides who may read what). A refusal or failure carries the
 * sentence for the model and what kind of failure it was.
 */
export type ToolOutcome =
  | {
      ok: true;
      text: string;
      data: Record<string, unknown>;
      /** `data` as JSON text (written once, for the size cap). */
      json: string;
      links: NonNullable<ToolOutput['links']>;
      /** The data holds user-generated content (posts, profiles). */
      untrusted: boolean;
    }
  | { ok: false; text: string; reason: string };

/** How a call reached `execute`: audited with it, so resource reads are told apart from tool calls. */
export type CallPath = 'tool' | 'resource' | 'completion';

export function toCallToolResult(outcome: ToolOutcome): CallToolResult {
  if (!outcome.ok) return { content: [{ type: 'text', text: outcome.text }], isError: true };
  return {
    content: [{ type: 'text', text: outcome.text }, ...outcome.links],
    structuredContent: outcome.data,
  };
}

/**
 * The text block: the tool's markdown, what the size cap cut, and (for JSON answers) the JSON, inside
 * the untrusted-content fence when it holds user-generated content.
 */
function composeText(out: ToolOutput, shaped: Shaped, maxBytes: number): string {
  const parts = [out.text];
  const truncation = describeTruncation(shaped.truncated, maxBytes);
  if (truncation) parts.push(truncation);
  if (out.json) parts.push(out.untrusted ? fencedBlock(shaped.json, UNTRUSTED_NOTICE) : shaped.json);
  return parts.join('\n\n');
}

export function execute(
  def: ToolDef,
  rawArgs: unknown,
  ctx: ServerContext,
  deps: CatalogDeps,
  via: CallPath = 'tool',
): Promise<ToolOutcome> {
  return executeIn(def, rawArgs, callEnvOf(ctx), deps, via);
}

/** Runs a tool call in `env`: checks, team policy, upstream, shaping and the audit row. */
export async function executeIn(
  def: ToolDef,
  rawArgs: unknown,
  env: CallEnv,
  deps: CatalogDeps,
  via: CallPath = 'tool',
): Promise<ToolOutcome> {
  const started = performance.now();
  const { caller } = env;
  const who = caller ? auditIdentity(caller) : { userId: null, workspaceId: null, clientId: null };
  const audit = (status: string, detail?: Record<string, unknown>) =>
    deps.audit({
      ...who,
      tool: def.name,
      status,
      durationMs: performance.now() - started,
      ...(detail || via !== 'tool' ? { detail: { ...detail, ...(via !== 'tool' ? { via } : {}) } } : {}),
    });
  const refuse = (reason: string, text: string): ToolOutcome => ({ ok: false, text, reason });

  if (!caller) {
    await audit('error', { reason: 'no_caller' });
    return refuse(
      'no_caller',
      'This request carries no signed-in caller; reconnect to the server and sign in again.',
    );
  }
  if (env.selection && !selects(env.selection, def)) {
    await audit('refused', { reason: outsideReason(env.selection, def), toolset: def.toolset });
    return refuse('selection', outsideSelectionText(env.selection, def));
  }
  if (!caller.scopes.includes(def.scope)) {
    await audit('error', { reason: 'insufficient_scope' });
    return refuse(
      'insufficient_scope',
      `${def.name} needs the ${def.scope} permission, which this connection was not granted.`,
    );
  }
  const parsed = def.input.safeParse(rawArgs ?? {});
  if (!parsed.success) {
    await audit('invalid');
    const issues = parsed.error.issues
      .map((i) => `${i.path.length ? `${i.path.join('.')}: ` : ''}${i.message}`)
      .join('; ');
    return refuse(
      'invalid',
      `Invalid arguments for ${def.name}: ${issues}. Nothing was sent upstream; correct the arguments and call again.`,
    );
  }
  if (!caller.upstream) {
    await audit('error', { reason: 'no_credentials' });
    return refuse(
      'no_credentials',
      `No upstream API credentials are linked to this workspace yet. Ask the user to link their API token and user id at ${deps.publicUrl}/account/credentials, then try again.`,
    );
  }

  // A legacy client's cancel arrives in another POST; the registry lets it reach this call.
  const registered = deps.inflight.register(
    caller.connectionKey,
    env.requestId,
    env.controller ?? env.signal,
  );
  const signal = registered.signal;
  const creds = caller.upstream;
  const call: CallEnd = {
    def,
    deps,
    signal,
    audit,
    refuse,
    pass: null,
    release: registered.release,
    credentials: credentialSource(caller, deps.publicUrl, deps.tokenHeader),
  };
  let execution: Promise<ToolOutput>;
  try {
    // An upstream user acting directly belongs to no team: no team policy, no write cap.
    const gate =
      deps.teamPolicy && caller.kind === 'member'
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
      await audit('refused', { reason: gate.refused.reason, ...gate.refused.detail });
      registered.release();
      return refuse(gate.refused.reason, gate.refused.message);
    }
    call.pass = gate;
    execution = def.run(gate ? gate.args : parsed.data, {
      upstream: gate ? gate.upstream : deps.upstream,
      creds,
      signal,
      stopWaiting: deps.stopWaiting,
      progress: progressReporter(env.notify),
      options: deps.options,
      waits: deps.waits,
      ...(env.onWaitStart ? { onWaitStart: env.onWaitStart } : {}),
      ...(deps.reuse ? { reuse: deps.reuse } : {}),
    });
  } catch (error) {
    return endCall(call, { error });
  }
  deps.running.add(execution);
  // The call ends in a continuation of the tool's promise, not after an await: no frame of this
  // function (its registers hold every local) stays suspended while a tool waits minutes for an
  // upstream job (issue 18: heap per waiting call).
  return execution.then(
    (out) => {
      deps.running.delete(execution);
      return endCall(call, { out });
    },
    (error: unknown) => {
      deps.running.delete(execution);
      return endCall(call, { error });
    },
  );
}

/** What the end of a call needs once its tool has settled (executeIn's continuation, endCall). */
interface CallEnd {
  def: ToolDef;
  deps: CatalogDeps;
  signal: AbortSignal;
  audit: (status: string, detail?: Record<string, unknown>) => Promise<void>;
  refuse: (reason: string, text: string) => ToolOutcome;
  /** The team policy's pass, finished once the audit row is written. */
  pass: PolicyPass | null;
  /** Withdraws the call from the cancellation registry. */
  release: () => void;
  /** Where the caller's upstream token comes from, for the words of a refusal of it. */
  credentials: CredentialSource;
}

/**
 * A call whose tool has settled (or failed before it ran): its outcome shaped and audited, then the
 * team policy's pass finished and the call withdrawn from the registry.
 */
async function endCall(call: CallEnd, ran: { out: ToolOutput } | { error: unknown }): Promise<ToolOutcome> {
  const { def, deps, audit, refuse } = call;
  let status = 'error';
  try {
    if ('error' in ran) throw ran.error;
    const { out } = ran;
    // User-generated content is cleaned once here, for every reader: the text's JSON, structuredContent,
    // resource reads and the views all take it from `data` (results/fence.ts says what cleaning does).
    const data = dropNulls(out.data) as Record<string, unknown>;
    const shaped = capResult(
      out.untrusted ? (cleanDeep(data) as Record<string, unknown>) : data,
      deps.options.maxResultBytes,
      out.rest,
    );
    status = call.signal.aborted ? 'cancelled' : 'ok';
    await audit(status);
    return {
      ok: true,
      text: composeText(out, shaped, deps.options.maxResultBytes),
      data: shaped.data,
      json: shaped.json,
      links: out.links ?? [],
      untrusted: out.untrusted === true,
    };
  } catch (error) {
    status = auditStatus(error);
    const kind = (error as { kind?: unknown }).kind;
    await audit(status, typeof kind === 'string' ? { error: kind } : undefined);
    if (status === 'error' && typeof kind !== 'string') {
      deps.logger.error({ err: error, tool: def.name }, 'tool failed');
    }
    return refuse(typeof kind === 'string' ? kind : 'error', errorMessage(error, def, call.credentials));
  } finally {
    // After the audit row: from now on it, not the reservation, counts the call against the cap.
    await call.pass?.finish(status).catch((err: unknown) => {
      deps.logger.error({ err, tool: def.name }, 'finishing the team policy failed');
    });
    call.release();
  }
}
