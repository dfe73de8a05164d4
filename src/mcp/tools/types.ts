import type { z } from 'zod';
import type { Scope } from '../../oauth/scopes.js';
import type { TeamTouch } from '../../teams/tool-policy.js';
import type { UpstreamClient, UpstreamCredentials } from '../../upstream/client.js';
import type { ResultOutput } from '../results/result-output.js';
import type { ProgressUpdate } from '../waiting/wait.js';
import type { WaitScheduler } from '../waiting/wait-scheduler.js';
import type { ToolOptions } from './options.js';
import type { ShownPreviews } from './preview-memory.js';
import type { Toolset } from './toolsets.js';

export type { ProgressUpdate } from '../waiting/wait.js';
export { DEFAULT_TOOL_OPTIONS, type ToolOptions } from './options.js';

/** What a tool's `run` receives: no MCP types, so tools are testable on their own. */
export interface ToolContext {
  upstream: UpstreamClient;
  creds: UpstreamCredentials;
  /** Aborted when the client cancels the call or disconnects. */
  signal: AbortSignal;
  /**
   * When the request arrived (epoch ms): a call's wait limit counts from here and covers all it does,
   * the upstream create included (./long-work.ts). Absent (a task's background settle): from now.
   */
  arrivedAt?: number;
  /**
   * Aborted when the server is shutting down: waits end at once and return their handle, like a
   * wait that reached its maximum, instead of being cut off (and without cancelling upstream work).
   */
  stopWaiting: AbortSignal;
  /** Sends a progress notification when the client asked for them; otherwise does nothing. */
  progress(update: ProgressUpdate): void;
  options: ToolOptions;
  /** The process's one scheduler of waiting calls (waitFor in ../waiting/wait.ts uses it). */
  waits: WaitScheduler;
  /** Called once when the call starts waiting for an upstream job (after its first progress report). */
  onWaitStart?(): void;
  /** Finds an identical recent submit instead of paying again (absent: every submit creates its work). */
  reuse?: SubmitReuse;
  /** The preview posts this caller was shown of running searches (absent: every preview is shown whole). */
  previews?: ShownPreviews;
}

/** The kinds of upstream job, as the scheduler keys them (`keyword_search:42`). */
export type JobKind = 'keyword_search' | 'user_search' | 'expert_search' | 'run';

/** A job a tool started or found: its upstream id and, when just created, the record creation returned. */
export interface StartedJob {
  id: string | number;
  initial?: unknown;
  /** This call created it (its first progress report then says so). */
  fresh?: boolean;
}

/** A tool's long upstream work in two phases, start and settle (./long-work.ts). */
export interface LongWork<A = Record<string, unknown>> {
  kind: JobKind;
  /** Which wait limit a call of this tool waits for (SEARCH_MAX_WAIT_SECONDS or RUN_MAX_WAIT_SECONDS). */
  limit: 'searchMaxWaitMs' | 'runMaxWaitMs';
  /**
   * What makes the upstream work what it is: the arguments sent upstream with their defaults applied
   * and relative dates resolved against `today` (YYYY-MM-DD, UTC); never `detail` or `new`. Two submits
   * with the same identity and credential are the same work.
   */
  identity(args: A, today: string): Record<string, unknown>;
  start(args: A, ctx: ToolContext): Promise<StartedJob>;
  /**
   * The caller's recent work upstream that `args` could have created (its list, newest first: same
   * query or question, not failed): where a create whose answer was lost is looked for before any
   * second create (../reuse/recent-submits.ts). Throws when the list cannot be read.
   */
  find(args: A, ctx: ToolContext): Promise<ListedJob[]>;
  settle(job: StartedJob, args: A, ctx: ToolContext, waitMs: number): Promise<Settled>;
}

/** A job as an upstream list shows it: its id and when it was created (epoch ms). */
export interface ListedJob {
  id: string | number;
  createdAt: number;
}

/**
 * What a settle came to: the result as the tool returns it, and how its wait ended (done; the limit or
 * shutdown; the caller stopped waiting; the job's status could not be read).
 */
export interface Settled {
  output: ToolOutput;
  ended: 'done' | 'timeout' | 'cancelled' | 'unreadable';
  /** The work ended without what it was asked for (failed, or an agent run cancelled). */
  failed?: boolean;
}

/** Where a settle or a tool saw a job: still running, ended with its result, or ended failed. */
export type SeenState = 'running' | 'ended' | 'failed';

/** The earlier identical submit a call was answered with. */
export interface Reused {
  /** How long ago that submit was made. */
  ageMs: number;
}

/**
 * Starts long work once: the identical submit of the same upstream user and credential still running
 * or finished less than 10 minutes ago is found instead of paying again (src/mcp/reuse/). Without one (tools
 * tested alone), every submit creates its work.
 */
export interface SubmitReuse {
  start<A>(
    tool: string,
    work: LongWork<A>,
    args: A,
    ctx: ToolContext,
  ): Promise<{ job: StartedJob; reused: Reused | null }>;
  /**
   * A settle saw the job still running or ended: reuse counts from then (10 minutes at most). Work
   * seen failed (an agent run cancelled included) is never reused: its record goes at once.
   */
  seen(kind: JobKind, id: string | number, state: SeenState): Promise<void>;
}

/** A successful tool outcome, before the token budget (built by the result builders of ../results). */
export type ToolOutput = ResultOutput;

export interface ToolAnnotationsSpec {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/** What a 404 means for this tool, so the error names the thing and the list tool to call. */
export interface NotFoundHint {
  what: string;
  listTool: string;
}

/** The MCP Apps views a tool's result can be drawn by (../apps/definitions.ts). */
export type ViewName = 'search' | 'topic-tree' | 'agent-run';

export interface ToolDef<I extends z.ZodType = z.ZodType> {
  name: string;
  title: string;
  /** One line, for the home page and the tools table of docs/tools.md. */
  summary: string;
  description: string;
  scope: Scope;
  /** The group a connection may narrow its tools to (./toolsets.ts). */
  toolset: Toolset;
  /**
   * The call makes upstream spend credits (a search, a run, a schedule's runs): the team's monthly write
   * cap counts and limits exactly these tools (src/teams/write-cap.ts gets the list from ./index.ts).
   */
  spendsCredits: boolean;
  /** The MCP Apps view that draws its result, for clients that render views (../apps/definitions.ts). */
  view?: ViewName;
  input: I;
  output: z.ZodType;
  annotations: ToolAnnotationsSpec;
  notFound?: NotFoundHint;
  /** 403 on this tool means the key lacks the producer permission (expert search). */
  forbiddenMeansProducer?: boolean;
  /** What the tool does to the team's shared account, for the team policy (src/teams/tool-rules/). */
  team?: TeamTouch;
  /**
   * The tool waits for an upstream job (waitFor): always (true), or when called with `wait: true`
   * ('on request'). Such calls are served so that, while waiting, they hold no SDK server
   * (../sdk-bypass/waiting-framed.ts).
   */
  waits?: true | 'on request';
  /** Long upstream work in two phases (./long-work.ts): what tasks and reuse of identical submits use. */
  work?: LongWork;
  run(args: z.output<I>, ctx: ToolContext): Promise<ToolOutput>;
}

/** Keeps `run`'s argument type tied to the input schema while the catalog stores plain ToolDefs. */
export function defineTool<I extends z.ZodType>(def: ToolDef<I>): ToolDef {
  return def as unknown as ToolDef;
}

export const READ: ToolAnnotationsSpec = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: true,
};

/** Creates something new upstream (spends credits): neither idempotent nor destructive. */
export const CREATE: ToolAnnotationsSpec = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: true,
};

/** Sets state to a given value: repeating it changes nothing more. */
export const UPDATE: ToolAnnotationsSpec = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: true,
};

export const DESTROY: ToolAnnotationsSpec = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: true,
  openWorldHint: true,
};
