import { z } from 'zod';
import { Rng } from './synthetic/prng.js';

/**
 * Fault injection, per credential or global. Request faults (latency, 5xx, 429, hang, reset, down)
 * act on API requests; behaviour faults (results lag, backend unavailable, failures) are captured by
 * searches and runs when they are created or (re)started.
 */
export const faultSchema = z
  .object({
    latency_ms: z.number().int().min(0).max(600_000).optional(),
    error_rate: z.number().min(0).max(1).optional(),
    error_status: z.number().int().min(500).max(599).optional(),
    rate_limit: z.boolean().optional(),
    retry_after_s: z.number().int().min(0).max(3_600).optional(),
    hang: z.boolean().optional(),
    /** A hanging request answers 504 after this long; omitted = until the client gives up or close(). */
    hang_ms: z.number().int().min(0).optional(),
    /** The connection is dropped without an answer (the client sees a reset). */
    reset: z.boolean().optional(),
    /**
     * Latency, 5xx, hang and reset act after the request was handled: a create is made upstream and
     * its answer is then lost, slow or an error (an outcome the client cannot know).
     */
    after_handling: z.boolean().optional(),
    /** For this many seconds from the PUT every matching request's connection is dropped; then the set clears. */
    down_s: z.number().int().min(1).max(3_600).optional(),
    results_lag_ms: z.number().int().min(0).optional(),
    backend_unavailable: z.boolean().optional(),
    fail_searches: z.boolean().optional(),
    fail_runs: z.boolean().optional(),
    /** Only requests whose host-relative path starts with this (e.g. `/api/iq/keyword_search`). */
    path_prefix: z.string().optional(),
    /** Only requests of this method (e.g. `POST`: the creates, not their polls). */
    method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']).optional(),
    /** Request faults (5xx, 429, hang) fire this many times, then the fault set is cleared. */
    remaining: z.number().int().min(1).optional(),
  })
  .strict();
export type FaultConfig = z.infer<typeof faultSchema>;

export type RequestFault =
  | { kind: 'error'; status: number }
  | { kind: 'rate_limit'; retryAfter: number }
  | { kind: 'hang'; ms: number | undefined }
  | { kind: 'reset' };

/** What a fault set's filters look at: the method and the host-relative path. */
export interface FaultedRequest {
  method: string;
  path: string;
}

/** Where a request fault acts: before the request is handled, or on its answer after. */
export type FaultPhase = 'before' | 'after';

export class Faults {
  private global: FaultConfig | null = null;
  private readonly perToken = new Map<string, FaultConfig>();
  private readonly rng = new Rng('faults');
  /** Wall-clock end of each set's `down_s` (not the sandbox clock, which tests freeze). */
  private readonly downUntil = new Map<FaultConfig, number>();

  set(token: string | null, config: FaultConfig): void {
    if (token === null) this.global = config;
    else this.perToken.set(token, config);
    if (config.down_s !== undefined) this.downUntil.set(config, Date.now() + config.down_s * 1000);
  }

  /** `null` clears the global fault set only. */
  clear(token: string | null): void {
    if (token === null) this.global = null;
    else this.perToken.delete(token);
  }

  clearAll(): void {
    this.global = null;
    this.perToken.clear();
  }

  list(): { global: FaultConfig | null; credentials: Record<string, FaultConfig> } {
    return { global: this.global, credentials: Object.fromEntries(this.perToken) };
  }

  /** Behaviour faults: the credential's value wins over the global one. */
  effective(token: string): FaultConfig {
    return { ...(this.global ?? {}), ...(this.perToken.get(token) ?? {}) };
  }

  latency(token: string | null, request: FaultedRequest, phase: FaultPhase): number {
    let ms = 0;
    for (const { config } of this.applicable(token, request)) {
      if (phaseOf(config) === phase) ms = Math.max(ms, config.latency_ms ?? 0);
    }
    return ms;
  }

  /** Decides whether this request fails in `phase`, consuming one `remaining` when it does. */
  requestFault(token: string | null, request: FaultedRequest, phase: FaultPhase): RequestFault | null {
    for (const { config, owner } of this.applicable(token, request)) {
      const until = this.downUntil.get(config);
      if (until !== undefined) {
        if (Date.now() < until) {
          if (phase === 'before') return { kind: 'reset' };
          continue;
        }
        // The outage is over: the set goes, as a set whose `remaining` ran out does.
        this.downUntil.delete(config);
        this.clear(owner);
        continue;
      }
      // A 429 says the request was not handled, so it only ever comes before.
      if (phase === 'before' && config.rate_limit === true) {
        return this.consume(config, owner, { kind: 'rate_limit', retryAfter: config.retry_after_s ?? 1 });
      }
      if (phaseOf(config) !== phase) continue;
      let fault: RequestFault | null = null;
      if (config.hang === true) fault = { kind: 'hang', ms: config.hang_ms };
      else if (config.reset === true) fault = { kind: 'reset' };
      else if (
        config.error_rate !== undefined &&
        config.error_rate > 0 &&
        this.rng.next() < config.error_rate
      ) {
        fault = { kind: 'error', status: config.error_status ?? 503 };
      }
      if (fault === null) continue;
      return this.consume(config, owner, fault);
    }
    return null;
  }

  private consume(config: FaultConfig, owner: string | null, fault: RequestFault): RequestFault {
    if (config.remaining !== undefined) {
      const left = config.remaining - 1;
      if (left <= 0) this.clear(owner);
      else this.set(owner, { ...config, remaining: left });
    }
    return fault;
  }

  private applicable(
    token: string | null,
    { method, path }: FaultedRequest,
  ): { config: FaultConfig; owner: string | null }[] {
    const out: { config: FaultConfig; owner: string | null }[] = [];
    const own = token === null ? undefined : this.perToken.get(token);
    if (own !== undefined) out.push({ config: own, owner: token });
    if (this.global !== null) out.push({ config: this.global, owner: null });
    return out.filter(
      ({ config }) =>
        (config.path_prefix === undefined || path.startsWith(config.path_prefix)) &&
        (config.method === undefined || config.method === method),
    );
  }
}

function phaseOf(config: FaultConfig): FaultPhase {
  return config.after_handling === true ? 'after' : 'before';
}
