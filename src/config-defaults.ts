/**
 * Defaults of the variables whose part sits above configuration (the tool layer, src/mcp/tools/, and
 * the tasks extension, src/mcp/tasks/): the one place each is written. Configuration reads them for its variables' defaults, and the tool layer
 * reads them when built without a configuration (the stdio server's unset variables, tests, benches),
 * so both behave as docs/configuration.md says. Parts below configuration keep their own defaults
 * (upstream/defaults.ts, db/pool-size.ts), which configuration reads.
 */
export const TOOL_DEFAULTS = Object.freeze({
  // Inside every known client's time-out (the SDKs' 60 s default, which progress does not reset).
  searchMaxWaitMs: 45_000,
  runMaxWaitMs: 45_000,
  pollInitialMs: 500,
  pollMaxMs: 5_000,
  // Bounds the CPU a thousand waiting calls cost (docs/performance.md, Latest run: waiting calls).
  pollsPerSecond: 40,
  resultsGraceMs: 45_000,
  // Under the 25,000 tokens Claude Code accepts from one tool result, with room to spare.
  maxResultTokens: 20_000,
});

/** The tasks extension's (TASK_LEASE_SECONDS, TASK_RETENTION_HOURS), read by mcp/handler.ts when unset. */
export const TASK_DEFAULTS = Object.freeze({
  // Another instance resumes a stopped one's tasks within a lease; it is renewed every third of it.
  leaseMs: 30_000,
  retentionMs: 24 * 3_600_000,
});
