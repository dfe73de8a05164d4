/*
 * What a waiting call asks the shared scheduler (./wait-scheduler.ts) for, and what it gets back.
 */

export type WaitOutcome<T> =
  | { kind: 'done'; record: T }
  | { kind: 'timeout'; record: T }
  | { kind: 'cancelled'; record: T }
  /** Reading the job's status failed (after the client's retries); the job itself may be fine. */
  | { kind: 'unreadable'; record: T; error: unknown };

/** What one waiting call asks for: how to read the job and when it is over. */
export interface WaitRequest<T> {
  /**
   * Identifies the upstream job together with the credential (e.g. `keyword_search:42`): callers waiting
   * on the same job with the same credential share its polls. Null: never shared.
   */
  key: string | null;
  /** The record as created (or first read); polling starts after the first delay. */
  initial: T;
  /**
   * Reads the record again, by `deadline` (epoch ms) when every waiter's last poll is bounded: the
   * upstream client's retries and time-outs fit before it.
   */
  poll(signal: AbortSignal, deadline: number | undefined): Promise<T>;
  /** True when waiting is over (terminal state, or results present, or grace spent). */
  isDone(record: T, now: number): boolean;
  /**
   * What of a record not yet done the scheduler keeps until the next poll (default: all of it). It
   * serves a caller that joins, is cancelled or loses the upstream meanwhile, and shutdown; a done
   * record and the one a waiter times out on are always the whole record just read. A search's preview
   * posts are most of what a waiting call would hold.
   */
  keep?(record: T): T;
  /** How far the job says it is (0–100): the poll plan brings a poll forward to the finish it predicts. */
  progress(record: T): { percentage: number };
  maxWaitMs: number;
  /**
   * How long the last poll (the one at `maxWaitMs`) may take: past it the caller leaves with the latest
   * record, so a slow or hanging upstream cannot hold the call past its limit. Absent: no bound.
   */
  lastPollMs?: number;
}

/** The key of one upstream job shared by every caller of one credential (`scope`). */
export function sharedJobKey(scope: string, key: string): string {
  return `${scope}\u0000${key}`;
}
