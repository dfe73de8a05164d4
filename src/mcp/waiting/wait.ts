import { otel } from '../../telemetry/index.js';
import { credentialDigest } from '../../upstream/credential-digest.js';
import { UpstreamError } from '../../upstream/errors.js';
import type { UpstreamCredentials } from '../../upstream/transport.js';
import type { WaitOutcome, WaitRequest } from './wait-request.js';
import type { WaitScheduler } from './wait-scheduler.js';

export type { WaitOutcome } from './wait-request.js';

/** A progress report of a long upstream job, as a waiting call sends it on. */
export interface ProgressUpdate {
  /** 0–100. */
  percentage: number;
  phase: string;
  message: string;
}

/** What a wait needs of the call it runs in (a tool's context gives all of it). */
export interface WaitContext {
  creds: UpstreamCredentials;
  waits: WaitScheduler;
  /** Aborted when the caller stops waiting. */
  signal: AbortSignal;
  progress(update: ProgressUpdate): void;
  /** Called once when the call starts waiting for the upstream job. */
  onWaitStart?(): void;
}

export type WaitSpec<T> = Omit<WaitRequest<T>, 'progress'> & {
  progress(record: T): ProgressUpdate;
  /**
   * The first progress report's message, in place of the initial record's: it names the job, so a
   * client that gives up before the answer still has the id to come back with.
   */
  announce?: string;
};

/**
 * Waits for a long upstream job on the shared scheduler (./wait-scheduler.ts): no timer or loop of its
 * own, only the latest record held. Reports the initial record's progress at once and every later
 * record's as it is read; stops on the call's abort signal (client cancelled or gone), at
 * `maxWaitMs`, and at shutdown. Tells the call (ctx.onWaitStart) when it starts waiting, so the MCP
 * layer can let go of the request's SDK server until the answer is ready. The spec goes to the
 * scheduler as it is (no copy with the caller's parts added: it would be held for the whole wait).
 */
export function waitFor<T>(ctx: WaitContext, spec: WaitSpec<T>): Promise<WaitOutcome<T>> {
  // With telemetry on, the wait is a span; the scheduler runs the job's polls in its context.
  if (otel.on)
    return otel.t.wait(
      spec.key ?? 'job',
      () => waitUntraced(ctx, spec),
      (o) => o.kind,
    );
  return waitUntraced(ctx, spec);
}

function waitUntraced<T>(ctx: WaitContext, spec: WaitSpec<T>): Promise<WaitOutcome<T>> {
  const first = spec.progress(spec.initial);
  ctx.progress(spec.announce === undefined ? first : { ...first, message: spec.announce });
  const outcome = ctx.waits.wait(credentialScope(ctx.creds), spec, ctx.signal, (record) =>
    ctx.progress(spec.progress(record)),
  );
  if (!(outcome instanceof Promise)) return Promise.resolve(outcome);
  ctx.onWaitStart?.();
  return outcome;
}

/**
 * Which callers may share a poll: those sending the same token and user id upstream (the same
 * records are visible to them). Hashed so the scheduler's keys do not hold the token itself.
 */
export function credentialScope(creds: UpstreamCredentials): string {
  return credentialDigest(creds);
}

/** The reporter of a call whose client asked for no progress: one function for all of them. */
const NO_PROGRESS = (_update: ProgressUpdate) => {};

/** A progress reporter that sends only changes, with a strictly increasing `progress` value. */
export function progressReporter(send: ((progress: number, message: string) => void) | null) {
  if (!send) return NO_PROGRESS;
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
      return `The wait was stopped; the ${what} keeps running.`;
    case 'unreadable': {
      const e = outcome.error;
      const after =
        e instanceof UpstreamError && e.retryAfterMs !== null ? Math.ceil(e.retryAfterMs / 1000) : null;
      if (e instanceof UpstreamError && e.kind === 'unavailable')
        return `The upstream is not answering (${e.detail ?? 'its last requests failed'}), so this server stopped asking it for ${after} s; the ${what} keeps running upstream and nothing is lost. In ${after} s:`;
      const reason = e instanceof UpstreamError ? `${e.kind}${e.status ? ` ${e.status}` : ''}` : 'an error';
      const when = after === null ? '' : ` In ${after} s:`;
      return `Reading the ${what}'s status failed (${reason}); it was created and may still be running.${when}`;
    }
    default:
      return `Not finished within the wait; the ${what} keeps running, nothing is lost.`;
  }
}
