/**
 * Cancellation across requests for 2025-era clients. Under stateless serving, a legacy client's
 * `notifications/cancelled` arrives in its own POST, served by a fresh server instance that knows
 * nothing of the call it names. This registry (per process) maps (grant, JSON-RPC request id) to the
 * waiting call so the cancel can reach it. Request ids are only unique per client session, so when two
 * in-flight calls of one grant share an id, the cancel is ambiguous and ignored rather than guessed.
 * Modern-era clients cancel by closing the request, which aborts the call directly.
 */
export class InflightCalls {
  private readonly calls = new Map<string, Set<AbortController>>();

  /** Registers a call; returns its signal and a release function for `finally`. */
  register(grantId: string, requestId: string | number): { signal: AbortSignal; release: () => void } {
    const key = keyOf(grantId, requestId);
    const controller = new AbortController();
    let set = this.calls.get(key);
    if (!set) {
      set = new Set();
      this.calls.set(key, set);
    }
    set.add(controller);
    return {
      signal: controller.signal,
      release: () => {
        const current = this.calls.get(key);
        if (!current) return;
        current.delete(controller);
        if (current.size === 0) this.calls.delete(key);
      },
    };
  }

  /** Aborts the call a `notifications/cancelled` message (or batch) names, if unambiguous. */
  cancelFrom(body: unknown, grantId: string): number {
    let cancelled = 0;
    for (const message of Array.isArray(body) ? body : [body]) {
      if (!message || typeof message !== 'object') continue;
      const { method, params } = message as { method?: unknown; params?: { requestId?: unknown } };
      if (method !== 'notifications/cancelled') continue;
      const requestId = params?.requestId;
      if (typeof requestId !== 'string' && typeof requestId !== 'number') continue;
      const set = this.calls.get(keyOf(grantId, requestId));
      if (set?.size === 1) {
        for (const controller of set) controller.abort(new Error('cancelled by the client'));
        cancelled++;
      }
    }
    return cancelled;
  }

  get size(): number {
    return this.calls.size;
  }
}

function keyOf(grantId: string, requestId: string | number): string {
  return `${grantId}\u0000${typeof requestId}:${requestId}`;
}
