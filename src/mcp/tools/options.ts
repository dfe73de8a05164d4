/**
 * Knobs of the tool layer and their defaults: the one place each default is written. The server's
 * configuration (src/config.ts) takes the defaults of its variables from here, so a handler built
 * without a configuration (the stdio server's unset variables, tests, benches) behaves as the
 * documented defaults say (docs/configuration.md).
 */
export interface ToolOptions {
  /** Longest a submit_*_search call (or a get with `wait`) waits for completion before returning the id. */
  searchMaxWaitMs: number;
  /** Longest start_agent_run (or get_agent_run with `wait`) waits before returning the run id. */
  runMaxWaitMs: number;
  /** First poll delay; doubles each poll up to pollMaxMs. */
  pollInitialMs: number;
  pollMaxMs: number;
  /** Upstream polls a second for the whole process, at most (../waiting/poll-budget.ts). */
  pollsPerSecond: number;
  /** How long to keep polling a search that reports `finished` but has no results yet. */
  resultsGraceMs: number;
  /** Size cap of one tool result's JSON, in bytes. */
  maxResultBytes: number;
}

export const DEFAULT_TOOL_OPTIONS: Readonly<ToolOptions> = Object.freeze({
  // Inside every known client's time-out (the SDKs' 60 s default, which progress does not reset).
  searchMaxWaitMs: 45_000,
  runMaxWaitMs: 45_000,
  pollInitialMs: 500,
  pollMaxMs: 5_000,
  // Bounds the CPU a thousand waiting calls cost (docs/performance.md, Latest run: waiting calls).
  pollsPerSecond: 40,
  resultsGraceMs: 45_000,
  maxResultBytes: 100 * 1024,
});
