import type { ServerContext } from '@modelcontextprotocol/server';
import type { PolicyPass } from '../../teams/tool-policy.js';
import { otel } from '../../telemetry/index.js';
import { auditIdentity } from '../auth/caller.js';
import { outsideReason, outsideSelectionText, selects } from '../tools/toolsets.js';
import type { ToolContext, ToolDef, ToolOutput } from '../tools/types.js';
import { progressReporter } from '../waiting/wait.js';
import { argumentProblems, readPlatformWords, withArgNotes } from './arg-words.js';
import { type CallEnv, callEnvOf } from './call-env.js';
import { failedOutcome, shapedOutcome } from './model-outcome.js';
import { auditStatus, type CredentialSource, credentialSource } from './tool-errors.js';
import type { CallPath, CatalogDeps, ToolOutcome } from './types.js';

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
export function executeIn(
  def: ToolDef,
  rawArgs: unknown,
  env: CallEnv,
  deps: CatalogDeps,
  via: CallPath = 'tool',
): Promise<ToolOutcome> {
  const outcome = run(def, rawArgs, env, deps, via);
  // A failed call marks its MCP span (tool_error) whichever path serves it; off, one property read.
  return otel.on ? otel.t.outcome(outcome) : outcome;
}

async function run(
  def: ToolDef,
  rawArgs: unknown,
  env: CallEnv,
  deps: CatalogDeps,
  via: CallPath,
): Promise<ToolOutcome> {
  const admitted = await admit(def, rawArgs, env, deps, via);
  if (!(admitted instanceof AdmittedCall)) return admitted;
  let execution: Promise<ToolOutput>;
  try {
    execution = def.run(admitted.args, admitted.ctx);
  } catch (error) {
    return admitted.end({ error });
  }
  // The call ends in a continuation of the tool's promise, not after an await: no frame of this
  // function (its registers hold every local) stays suspended while a tool waits minutes for an
  // upstream job (heap per waiting call). Shutdown waits for the end too (its audit row is written
  // before the answer), not only for the tool.
  const ended = execution.then(
    (out) => admitted.end({ out }),
    (error: unknown) => admitted.end({ error }),
  );
  deps.running.add(ended);
  const forget = () => deps.running.delete(ended);
  ended.then(forget, forget);
  return ended;
}

/**
 * A call that passed every check before its tool runs (caller, selection, scope, arguments,
 * credentials, team policy with its write-cap reservation): the arguments and context to run it with,
 * and the ways it ends. It is registered for cancellation until it ends.
 */
export interface AdmittedCallParts {
  def: ToolDef;
  args: unknown;
  ctx: ToolContext;
  deps: CatalogDeps;
  audit: (status: string, detail?: Record<string, unknown>) => Promise<void>;
  /** The team policy's pass, finished once the audit row is written. */
  pass: PolicyPass | null;
  /** Withdraws the call from the cancellation registry. */
  release: () => void;
  /** Where the caller's upstream token comes from, for the words of a refusal of it. */
  credentials: CredentialSource;
  /** How arguments were read (`X` as twitter), said once at the top of the answer. */
  notes?: string[];
}

export class AdmittedCall {
  readonly def: ToolDef;
  readonly args: unknown;
  readonly ctx: ToolContext;
  readonly credentials: CredentialSource;
  readonly notes: string[];
  private readonly deps: CatalogDeps;
  private readonly audit: AdmittedCallParts['audit'];
  private readonly pass: PolicyPass | null;
  private readonly release: () => void;

  constructor(parts: AdmittedCallParts) {
    // Field by field, not the parts object itself: a waiting call keeps this instance for minutes.
    this.def = parts.def;
    this.args = parts.args;
    this.ctx = parts.ctx;
    this.credentials = parts.credentials;
    this.notes = parts.notes ?? [];
    this.deps = parts.deps;
    this.audit = parts.audit;
    this.pass = parts.pass;
    this.release = parts.release;
  }

  /** The tool settled (or failed before it ran): its outcome shaped and audited, then let go. */
  async end(ran: { out: ToolOutput } | { error: unknown }): Promise<ToolOutcome> {
    let status = 'error';
    try {
      if ('error' in ran) throw ran.error;
      const out = withArgNotes(ran.out, this.notes);
      const outcome = shapedOutcome(out, this.deps.options.maxResultTokens);
      status = this.ctx.signal.aborted ? 'cancelled' : 'ok';
      await this.audit(status);
      return outcome;
    } catch (error) {
      status = auditStatus(error);
      const kind = (error as { kind?: unknown }).kind;
      await this.audit(status, typeof kind === 'string' ? { error: kind } : undefined);
      return failedOutcome(error, this.def, this.credentials, this.deps.logger);
    } finally {
      await this.letGo(status);
    }
  }

  /**
   * The call's work was accepted upstream and goes on without it (a task): audited `ok` with `detail`,
   * counted against the write cap like any accepted call, then let go.
   */
  async handOver(detail: Record<string, unknown>): Promise<void> {
    await this.audit('ok', detail);
    await this.letGo('ok');
  }

  /** Refused after admission, before its work started (a limit of the tasks extension): audited, let go. */
  async refuse(text: string, reason: string): Promise<ToolOutcome> {
    await this.audit('refused', { reason });
    await this.letGo('refused');
    return { ok: false, text, reason };
  }

  private async letGo(status: string): Promise<void> {
    // After the audit row: from now on it, not the reservation, counts the call against the cap.
    await this.pass?.finish(status).catch((err: unknown) => {
      this.deps.logger.error({ err, tool: this.def.name }, 'finishing the team policy failed');
    });
    this.release();
  }
}

/** A call's checks before its tool runs: an AdmittedCall, or the refusal (already audited). */
export async function admit(
  def: ToolDef,
  rawArgs: unknown,
  env: CallEnv,
  deps: CatalogDeps,
  via: CallPath = 'tool',
): Promise<AdmittedCall | ToolOutcome> {
  const started = performance.now();
  // The wait limit counts from the request's arrival (else from here): the body, the token check, team
  // policy and the upstream create all fall inside it.
  const arrivedAt = env.arrivedAt ?? Date.now();
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
  const words = readPlatformWords(rawArgs ?? {});
  const parsed = def.input.safeParse(words.args, { reportInput: true });
  if (!parsed.success) {
    await audit('invalid');
    const issues = argumentProblems(parsed.error.issues);
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
  const credentials = credentialSource(caller, deps.publicUrl, deps.tokenHeader);
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
    const ctx: ToolContext = {
      upstream: gate ? gate.upstream : deps.upstream,
      creds,
      signal,
      arrivedAt,
      stopWaiting: deps.stopWaiting,
      progress: progressReporter(env.notify),
      options: deps.options,
      waits: deps.waits,
      ...(env.onWaitStart ? { onWaitStart: env.onWaitStart } : {}),
      ...(deps.reuse ? { reuse: deps.reuse } : {}),
      ...(deps.previews ? { previews: deps.previews.of(caller.connectionKey) } : {}),
    };
    const args = gate ? gate.args : parsed.data;
    return new AdmittedCall({
      def,
      args,
      ctx,
      deps,
      audit,
      pass: gate,
      release: registered.release,
      credentials,
      notes: words.notes,
    });
  } catch (error) {
    // The team policy itself failed (it reads upstream and the database): the call ends as a failure.
    const status = auditStatus(error);
    const kind = (error as { kind?: unknown }).kind;
    await audit(status, typeof kind === 'string' ? { error: kind } : undefined);
    registered.release();
    return failedOutcome(error, def, credentials, deps.logger);
  }
}
