import type { Logger } from '../logger.js';
import { metrics } from '../metrics/index.js';
import { createUpstreamClient, type UpstreamClientOptions } from '../upstream/client.js';
import type { CancellationRegistry } from './cancellation/inflight.js';
import type { CatalogDeps } from './catalog/types.js';
import { PreviewMemory } from './tools/preview-memory.js';
import { DEFAULT_TOOL_OPTIONS, type SubmitReuse, type ToolOptions } from './tools/types.js';
import { TimerWheel } from './waiting/timer-wheel.js';
import { WaitScheduler } from './waiting/wait-scheduler.js';

/**
 * How a server tunes what a tool call needs: the tool layer's knobs and the upstream client's timeout
 * and retries. What is left unset is the default, the same for the hosted server and the stdio server.
 */
export interface CallTuning extends Partial<ToolOptions> {
  /** Per-attempt upstream timeout (default UPSTREAM_TIMEOUT_MS's, 30 s). */
  upstreamTimeoutMs?: number;
  /** Retries of idempotent upstream reads (default 2). */
  upstreamMaxRetries?: number;
  /** First retry backoff (default 200 ms). */
  upstreamBackoffMs?: number;
  /** How long a host's circuit first stays open for a credential after failures in a row (default 10 s). */
  upstreamCircuitOpenMs?: number;
}

/** What differs between the hosted server and the stdio server: each passes its own. */
export interface CallSetting {
  upstream: { searchUrl: string; agentUrl: string; tokenHeader: string; userHeader: string };
  /** Where links in results point ('' over stdio: there is no web server). */
  publicUrl: string;
  logger: Logger;
  /** Where a call's audit event goes: a database row on /mcp, a log line over stdio. */
  audit: CatalogDeps['audit'];
  /** Running calls by request id, for cancellation (across instances on /mcp with PostgreSQL). */
  inflight: CancellationRegistry;
  /** Team policy (/mcp only: over stdio the upstream user acts alone). */
  teamPolicy?: CatalogDeps['teamPolicy'];
  /** Reuse of identical recent submits (/mcp only: it needs the database). */
  reuse?: SubmitReuse;
  /** Aborted at shutdown: waiting calls return their handles. */
  stopWaiting: AbortSignal;
  /** The one timer of every due poll and deadline; shared with the bypass's keep-alives on /mcp. */
  wheel?: TimerWheel;
}

/**
 * What running a tool call needs, built once per server: the one place the upstream client (with
 * its retry policy), the waits and the tool options are made, for /mcp (handler.ts) and stdio
 * (stdio.ts) alike.
 */
export function assembleCatalog(setting: CallSetting, tuning: CallTuning): CatalogDeps {
  const options = toolOptionsFrom(tuning);
  const { logger } = setting;
  return {
    upstream: createUpstreamClient({
      ...setting.upstream,
      ...upstreamPolicy(tuning),
      logger: logger.child({ component: 'upstream' }),
      observe: metrics.observeUpstream,
    }),
    publicUrl: setting.publicUrl,
    tokenHeader: setting.upstream.tokenHeader,
    options,
    audit: setting.audit,
    logger,
    inflight: setting.inflight,
    ...(setting.teamPolicy ? { teamPolicy: setting.teamPolicy } : {}),
    stopWaiting: setting.stopWaiting,
    running: new Set<Promise<unknown>>(),
    waits: new WaitScheduler(options, setting.stopWaiting, Date.now, setting.wheel ?? new TimerWheel()),
    ...(setting.reuse ? { reuse: setting.reuse } : {}),
    previews: new PreviewMemory(),
  };
}

/** The tool layer's knobs: the defaults, with what the tuning sets (an unset key keeps its default). */
export function toolOptionsFrom(tuning: CallTuning): ToolOptions {
  const options: ToolOptions = { ...DEFAULT_TOOL_OPTIONS };
  for (const key of Object.keys(DEFAULT_TOOL_OPTIONS) as (keyof ToolOptions)[]) {
    const value = tuning[key];
    if (value !== undefined) options[key] = value;
  }
  return options;
}

/** The upstream client's timeout, retries and circuit: unset, the client's own defaults. */
function upstreamPolicy(
  tuning: CallTuning,
): Pick<UpstreamClientOptions, 'timeoutMs' | 'maxRetries' | 'backoffBaseMs' | 'circuit'> {
  return {
    ...(tuning.upstreamCircuitOpenMs !== undefined
      ? { circuit: { openMs: tuning.upstreamCircuitOpenMs, maxOpenMs: tuning.upstreamCircuitOpenMs * 6 } }
      : {}),
    ...(tuning.upstreamTimeoutMs !== undefined ? { timeoutMs: tuning.upstreamTimeoutMs } : {}),
    ...(tuning.upstreamMaxRetries !== undefined ? { maxRetries: tuning.upstreamMaxRetries } : {}),
    ...(tuning.upstreamBackoffMs !== undefined ? { backoffBaseMs: tuning.upstreamBackoffMs } : {}),
  };
}
