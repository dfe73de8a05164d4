import type { Logger } from '../../logger.js';
import { CancelledByClient } from '../waiting/stop-reasons.js';
import type { CallDirectory } from './call-directory.js';

/**
 * Where a legacy client's `notifications/cancelled` finds the call it names: the one small interface
 * tool calls see (InflightCalls below, with a CallDirectory across instances).
 */
export interface CancellationRegistry {
  /**
   * Registers a running call; returns the signal a cancel aborts and a release for `finally`. `call` is
   * the call's own controller (a cancel aborts it: the call keeps one signal), or a signal the call
   * cannot abort itself (the SDK's exchange), which the returned one then follows too.
   */
  register(
    grantId: string,
    requestId: string | number,
    call?: AbortController | AbortSignal,
  ): { signal: AbortSignal; release: () => void };
  /** Cancels the calls a `notifications/cancelled` message (or batch) names; resolves to how many. */
  cancelFrom(body: unknown, grantId: string): Promise<number>;
}

/**
 * Cancellation across requests for 2025-era clients: a cancel stops the call's wait and frees what
 * it holds; the upstream work goes on (../waiting/stop-reasons.ts says why). Under stateless serving, a legacy client's
 * `notifications/cancelled` arrives in its own POST, served by a fresh server instance that knows
 * nothing of the call it names. This registry (per process) maps (grant, JSON-RPC request id) to the
 * waiting call so the cancel can reach it; with a CallDirectory (PostgreSQL, several instances) a cancel
 * received here also reaches a call running on another instance. Request ids are only unique per
 * client session, so when two in-flight calls of one grant share an id (on any instances), the cancel
 * is ambiguous and ignored rather than guessed. Modern-era clients cancel by closing the request, which
 * aborts the call directly.
 */
export class InflightCalls implements CancellationRegistry {
  /**
   * The calls by (grant, request id): one controller, or a set of them while two calls share the key
   * (rare: a Set per call would cost ≈ 130 B for as long as it waits).
   */
  private readonly calls = new Map<string, AbortController | Set<AbortController>>();

  constructor(
    private readonly directory?: CallDirectory,
    private readonly logger?: Logger,
  ) {}

  /** Receives cancels other instances forward; resolves once listening. */
  async start(): Promise<void> {
    await this.directory?.start((grantId, requestKey) => this.abortOne(grantId, requestKey));
  }

  async stop(): Promise<void> {
    await this.directory?.stop();
  }

  /**
   * Registers a call; returns its signal and a release function for `finally`. A call that owns its
   * controller is aborted through it: one abort signal per waiting call, not a second following the
   * first (each is memory held for as long as the call waits). A signal the call does not own is
   * followed through one listener, not AbortSignal.any, which makes weak references and a finalization
   * registry for every dependent signal.
   */
  register(
    grantId: string,
    requestId: string | number,
    call?: AbortController | AbortSignal,
  ): { signal: AbortSignal; release: () => void } {
    const requestKey = requestKeyOf(requestId);
    const key = keyOf(grantId, requestKey);
    const linked = call instanceof AbortController ? undefined : call;
    const controller = call instanceof AbortController ? call : new AbortController();
    const follow = linked ? () => controller.abort(linked.reason) : undefined;
    if (linked?.aborted) controller.abort(linked.reason);
    else if (follow) linked?.addEventListener('abort', follow, { once: true });
    const present = this.calls.get(key);
    if (!present) this.calls.set(key, controller);
    else if (present instanceof Set) present.add(controller);
    else this.calls.set(key, new Set([present, controller]));
    const withdraw = this.directory?.announce(grantId, requestKey);
    return {
      signal: controller.signal,
      release: () => {
        if (follow) linked?.removeEventListener('abort', follow);
        withdraw?.();
        const current = this.calls.get(key);
        if (current === controller) this.calls.delete(key);
        else if (current instanceof Set) {
          current.delete(controller);
          if (current.size === 0) this.calls.delete(key);
        }
      },
    };
  }

  /**
   * Aborts the call a `notifications/cancelled` message (or batch) names, if unambiguous. Resolves to
   * how many calls were cancelled here or forwarded; never rejects (a failure is logged).
   */
  async cancelFrom(body: unknown, grantId: string): Promise<number> {
    let cancelled = 0;
    for (const message of Array.isArray(body) ? body : [body]) {
      if (!message || typeof message !== 'object') continue;
      const { method, params } = message as { method?: unknown; params?: { requestId?: unknown } };
      if (method !== 'notifications/cancelled') continue;
      const requestId = params?.requestId;
      if (typeof requestId !== 'string' && typeof requestId !== 'number') continue;
      try {
        if (await this.cancel(grantId, requestKeyOf(requestId))) cancelled++;
      } catch (err) {
        this.logger?.warn({ err }, 'could not pass a cancellation on');
      }
    }
    return cancelled;
  }

  get size(): number {
    return this.calls.size;
  }

  private async cancel(grantId: string, requestKey: string): Promise<boolean> {
    const here = countOf(this.calls.get(keyOf(grantId, requestKey)));
    if (!this.directory) return this.abortOne(grantId, requestKey);
    const elsewhere = await this.directory.elsewhere(grantId, requestKey);
    if (here + elsewhere.length !== 1) return false;
    if (here === 1) return this.abortOne(grantId, requestKey);
    await this.directory.forward(elsewhere[0] as string, grantId, requestKey);
    return true;
  }

  /** Aborts the one local call with this key; none or several: nothing. */
  private abortOne(grantId: string, requestKey: string): boolean {
    const present = this.calls.get(keyOf(grantId, requestKey));
    if (countOf(present) !== 1) return false;
    const only = present instanceof Set ? [...present][0] : present;
    only?.abort(new CancelledByClient());
    return true;
  }
}

function countOf(calls: AbortController | Set<AbortController> | undefined): number {
  if (calls === undefined) return 0;
  return calls instanceof Set ? calls.size : 1;
}

/** The request id with its type: 1 and "1" are different ids (JSON-RPC 2.0 §4). */
function requestKeyOf(requestId: string | number): string {
  return `${typeof requestId}:${requestId}`;
}

function keyOf(grantId: string, requestKey: string): string {
  return `${grantId}\u0000${requestKey}`;
}
