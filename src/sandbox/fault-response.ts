import type { Context } from 'hono';
import type { FaultPhase, RequestFault } from './faults.js';
import type { Store } from './state/store.js';

export type Host = 'search' | 'agent';

export function errorBody(host: Host, message: string) {
  return host === 'agent' ? { detail: message } : { error: message };
}

/** What a request fault did, for the request log (`null`: none fired). */
export type FaultFired = RequestFault['kind'] | null;

/**
 * Applies the request faults of one phase: its latency, then the fault if one fires. Before: the
 * fault's answer replaces the handling (`next` is not called). After: the request was handled and
 * the fault replaces its answer. Answers whether `next` still has to run (before, nothing fired).
 */
export async function applyRequestFaults(
  c: Context,
  store: Store,
  hangs: Set<() => void>,
  where: { host: Host; token: string | null; path: string; method: string; phase: FaultPhase },
): Promise<{ handled: boolean; fired: FaultFired }> {
  const request = { method: where.method, path: where.path };
  const latency = store.faults.latency(where.token, request, where.phase);
  if (latency > 0) await new Promise((resolve) => setTimeout(resolve, latency));
  const fault = store.faults.requestFault(where.token, request, where.phase);
  if (fault === null) return { handled: false, fired: null };
  if (fault.kind === 'error') {
    c.res = c.json(
      errorBody(where.host, 'Service temporarily unavailable (sandbox fault)'),
      fault.status as 500,
    );
  } else if (fault.kind === 'rate_limit') {
    c.res = c.json(errorBody(where.host, 'Rate limit exceeded'), 429, {
      'Retry-After': String(fault.retryAfter),
    });
  } else if (fault.kind === 'reset') {
    c.res = resetConnection(c);
  } else {
    await hang(c, hangs, fault.ms);
    c.res = c.json(errorBody(where.host, 'Gateway timeout (sandbox fault: hanging request)'), 504);
  }
  return { handled: true, fired: fault.kind };
}

function hang(c: Context, hangs: Set<() => void>, ms: number | undefined): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      hangs.delete(done);
      clearTimeout(timer);
      resolve();
    };
    const timer = ms === undefined ? undefined : setTimeout(done, ms);
    hangs.add(done);
    c.req.raw.signal.addEventListener('abort', done, { once: true });
  });
}

/**
 * Drops the connection with no answer, as a peer that resets it. Served by @hono/node-server, the
 * socket is destroyed; in process (`app.request`) the answer's body fails when read, which is how a
 * fetch caller meets a reset.
 */
function resetConnection(c: Context): Response {
  const socket = (c.env as { incoming?: { socket?: { destroy(): void } } } | undefined)?.incoming?.socket;
  if (socket !== undefined) {
    socket.destroy();
    // Never written: the socket is gone (a body that fails would only be logged as an error).
    return new Response(null, { status: 502 });
  }
  return new Response(
    new ReadableStream({
      start(controller) {
        controller.error(new Error('connection reset (sandbox fault)'));
      },
    }),
    { status: 502 },
  );
}
