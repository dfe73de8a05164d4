import { setTimeout as sleep } from 'node:timers/promises';
import { metrics } from '../metrics/index.js';
import { UpstreamError } from '../upstream/errors.js';
import type { ProgressUpdate, ToolContext } from './tools/types.js';

export type WaitOutcome<T> =
  | { kind: 'done'; record: T }
  | { kind: 'timeout'; record: T }
  | { kind: 'cancelled'; record: T }
  /** Reading the job's status failed (after the client's retries); the job itself may be fine. */
  | { kind: 'unreadable'; record: T; error: unknown };

export interface WaitSpec<T> {
  /** The record as created (or first read); polling starts after the first delay. */
  initial: T;
  /** Reads the record again. */
  poll(signal: AbortSignal): Promise<T>;
  /** True when waiting is over (terminal state, or results present, or grace spent). */
  isDone(record: T, now: number): boolean;
  progress(record: T): ProgressUpdate;
  maxWaitMs: number;
}

/**
 * Waits for a long upstream job without busy looping: one timer per waiting call, the delay starting
 * at `pollInitialMs` and doubling up to `pollMaxMs`. Only the latest record is held. Stops on the
 * call's abort signal (client cancelled or disconnected) and at `maxWaitMs`.
 */
export function waitFor<T>(ctx: ToolContext, spec: WaitSpec<T>): Promise<WaitOutcome<T>> {
  return metrics.trackWaiting(waitLoop(ctx, spec));
}
async function waitLoop<T>(ctx: ToolContext, spec: WaitSpec<T>): Promise<WaitOutcome<T>> {
  const started = Date.now();
  const deadline = started + spec.maxWaitMs;
  let record = spec.initial;
  let delay = ctx.options.pollInitialMs;
  ctx.progress(spec.progress(record));
  const interrupt = AbortSignal.any([ctx.signal, ctx.stopWaiting]);
  while (!spec.isDone(record, Date.now())) {
    if (ctx.signal.aborted) return { kind: 'cancelled', record };
    const left = deadline - Date.now();
    if (left <= 0 || ctx.stopWaiting.aborted) return { kind: 'timeout', record };
    try {
      await sleep(Math.min(delay, left), undefined, { signal: interrupt });
    } catch {
      return ctx.signal.aborted ? { kind: 'cancelled', record } : { kind: 'timeout', record };
    }
    delay = Math.min(delay * 2, ctx.options.pollMaxMs);
    try {
      record = await spec.poll(ctx.signal);
    } catch (error) {
      if (ctx.signal.aborted) return { kind: 'cancelled', record };
      return { kind: 'unreadable', record, error };
    }
    ctx.progress(spec.progress(record));
  }
  return { kind: 'done', record };
}

/** A progress reporter that sends only changes, with a strictly increasing `progress` value. */
export function progressReporter(send: ((progress: number, message: string) => void) | null) {
  if (!send) return () => {};
  let last = -1;
  let lastMessage = '';
  return (update: ProgressUpdate) => {
    const message = `${update.phase}: ${update.message}`;
    const pct = Math.max(0, Math.min(100, Number.isFinite(update.percentage) ? update.percentage : 0));
    if (pct <= last && message === lastMessage) return;
    const value = pct > last ? pct : Math.min(100, last + 0.01);
    if (value <= last) return;
    last = value;
    lastMessage = message;
    send(value, message);
  };
}

/** Why a wait ended without the result, as the start of a sentence for `next_step`. */
export function whyUnfinished(outcome: WaitOutcome<unknown>, what: string): string {
  switch (outcome.kind) {
    case 'cancelled':
      return `The wait was cancelled; the ${what} keeps running.`;
    case 'unreadable': {
      const e = outcome.error;
      const reason = e instanceof UpstreamError ? `${e.kind}${e.status ? ` ${e.status}` : ''}` : 'an error';
      return `Reading the ${what}'s status failed (${reason}); it was created and may still be running.`;
    }
    default:
      return `The wait limit was reached; the ${what} keeps running.`;
  }
}
