/**
 * The upstream client's configurable defaults, written once: the transport falls back to them and the
 * server's configuration (src/config.ts) takes its variables' defaults from them.
 */
export const UPSTREAM_DEFAULTS = Object.freeze({
  /** The two auth headers (docs/upstream.md, Two hosts, two headers). */
  tokenHeader: 'X-SERVICE-TOKEN',
  userHeader: 'X-SERVICE-USER-ID',
  /** Per-attempt timeout of an upstream call. */
  timeoutMs: 30_000,
});
