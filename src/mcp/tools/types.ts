import type { z } from 'zod';
import type { Scope } from '../../oauth/scopes.js';
import type { TeamTouch } from '../../teams/tool-policy.js';
import type { UpstreamClient, UpstreamCredentials } from '../../upstream/client.js';
import type { ResultOutput } from '../results/output.js';
import type { ProgressUpdate } from '../waiting/wait.js';
import type { WaitScheduler } from '../waiting/wait-scheduler.js';
import type { Toolset } from './toolsets.js';

export type { ProgressUpdate } from '../waiting/wait.js';

/** Knobs of the tool layer; every one has a default (see DEFAULT_TOOL_OPTIONS). */
export interface ToolOptions {
  /** Longest a submit_*_search call waits for completion before returning the id. */
  searchMaxWaitMs: number;
  /** Longest start_agent_run waits before returning the run id. */
  runMaxWaitMs: number;
  /** First poll delay; doubles each poll up to pollMaxMs. */
  pollInitialMs: number;
  pollMaxMs: number;
  /** Upstream polls a second for the whole process, at most (./poll-budget.ts). */
  pollsPerSecond: number;
  /** How long to keep polling a search that reports `finished` but has no results yet. */
  resultsGraceMs: number;
  /** Size cap of one tool result's JSON, in bytes. */
  maxResultBytes: number;
}

export const DEFAULT_TOOL_OPTIONS: ToolOptions = {
  searchMaxWaitMs: 10 * 60_000,
  runMaxWaitMs: 8 * 60_000,
  pollInitialMs: 500,
  pollMaxMs: 5_000,
  pollsPerSecond: 40,
  resultsGraceMs: 45_000,
  maxResultBytes: 100_000,
};

/** What a tool's `run` receives: no MCP types, so tools are testable on their own. */
export interface ToolContext {
  upstream: UpstreamClient;
  creds: UpstreamCredentials;
  /** Aborted when the client cancels the call or disconnects. */
  signal: AbortSignal;
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
}

/** A successful tool outcome, before size capping (built by the result builders of ../results). */
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

export interface ToolDef<I extends z.ZodType = z.ZodType> {
  name: string;
  title: string;
  /** One line, for the home page and the tools table of docs/tools.md. */
  summary: string;
  description: string;
  scope: Scope;
  /** The group a connection may narrow its tools to (./toolsets.ts). */
  toolset: Toolset;
  input: I;
  output: z.ZodType;
  annotations: ToolAnnotationsSpec;
  notFound?: NotFoundHint;
  /** 403 on this tool means the key lacks the producer permission (expert search). */
  forbiddenMeansProducer?: boolean;
  /** What the tool does to the team's shared account, for the team policy (src/teams/tool-policy.ts). */
  team?: TeamTouch;
  /**
   * The tool may wait for an upstream job (waitFor): its calls are served so that, while waiting, they
   * hold no SDK server (../sdk-bypass/waiting-call.ts).
   */
  waits?: true;
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
