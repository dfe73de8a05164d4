import type { ToolCallAudit } from '../../audit/tool-calls.js';
import type { Logger } from '../../logger.js';
import type { PolicyCall, PolicyGate } from '../../teams/tool-policy.js';
import type { UpstreamClient } from '../../upstream/client.js';
import type { CancellationRegistry } from '../cancellation/inflight.js';
import type { PreviewMemory } from '../tools/preview-memory.js';
import type { SubmitReuse, ToolOptions, ToolOutput } from '../tools/types.js';
import type { WaitScheduler } from '../waiting/wait-scheduler.js';

/** What running a tool call needs of the server, built once (../handler.ts). */
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
  /** Which preview posts each connection was shown (../tools/preview-memory.ts); absent, all are shown. */
  previews?: PreviewMemory;
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
      /** `data` as JSON text (written once, for the token budget). */
      json: string;
      links: NonNullable<ToolOutput['links']>;
      /** The data holds user-generated content (posts, profiles). */
      untrusted: boolean;
    }
  | { ok: false; text: string; reason: string };

/** How a call reached `execute`: audited with it, so resource reads are told apart from tool calls. */
export type CallPath = 'tool' | 'resource' | 'completion';
