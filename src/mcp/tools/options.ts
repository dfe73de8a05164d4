import { TOOL_DEFAULTS } from '../../config-defaults.js';

/**
 * Knobs of the tool layer. Their defaults are configuration's (src/config-defaults.ts: configuration
 * sits below this layer and may not import it), so a handler built without a configuration (the stdio
 * server's unset variables, tests, benches) behaves as the documented defaults say.
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
  /**
   * Most tokens of one answer a model reads (its text, and its structuredContent on its own), as
   * ../results/tokens.ts estimates them, on the high side.
   */
  maxResultTokens: number;
}

/** The defaults, written once in configuration (../../config-defaults.ts), which reads them too. */
export const DEFAULT_TOOL_OPTIONS: Readonly<ToolOptions> = TOOL_DEFAULTS;
