import type { BatchedAuditor } from './batched.js';
import type { ToolCallAudit } from './tool-calls.js';

/** The window reads are counted in: the clock's minute. */
export const READ_WINDOW_MS = 60_000;

interface Counted {
  event: ToolCallAudit;
  /** Reads after the window's first, which has its own row. */
  reads: number;
  longestMs: number;
  lastAt: number;
}

export interface RepeatedReadsAuditor {
  /**
   * A read of `subject` (a task) counted into its window's row: true, unless it is the window's first
   * read of it, which the caller then writes with record().
   */
  count(subject: string, durationMs: number): boolean;
  /** The window's first read of `subject`: its row is written at once, and the reads after it counted. */
  record(event: ToolCallAudit, subject: string): void;
  /** Queues the counts of the window so far (at its end, and at a graceful stop). */
  flush(): void;
}

/**
 * Audit rows for a read every client repeats (tasks/get of a working task, every few seconds): per
 * subject, the window's first read is a row of its own, and the reads after it in
 * the same window are one row whose detail says how many (`reads`), written when the window ends or
 * at a graceful stop. Every read is accounted for; a poller costs two rows a minute, not one per poll.
 * The row of the count carries the longest of its reads' durations and the time of the last. A subject
 * is one caller's reads with one outcome (a task's successful reads: only its owner's succeed), so a
 * counted read needs no event of its own.
 */
export function repeatedReadsAuditor(
  rows: BatchedAuditor,
  options: { windowMs?: number | undefined; now?: () => number } = {},
): RepeatedReadsAuditor {
  const windowMs = options.windowMs ?? READ_WINDOW_MS;
  const now = options.now ?? Date.now;
  let window = -1;
  let counted = new Map<string, Counted>();
  let timer: NodeJS.Timeout | null = null;

  const flush = (): void => {
    if (timer) clearTimeout(timer);
    timer = null;
    const ended = counted;
    counted = new Map();
    for (const { event, reads, longestMs, lastAt } of ended.values()) {
      if (reads === 0) continue;
      rows.record({ ...event, durationMs: longestMs, detail: { ...event.detail, reads } }, lastAt);
    }
  };

  return {
    count(subject, durationMs) {
      const at = now();
      if (Math.floor(at / windowMs) !== window) return false;
      const seen = counted.get(subject);
      if (!seen) return false;
      seen.reads++;
      if (durationMs > seen.longestMs) seen.longestMs = durationMs;
      seen.lastAt = at;
      return true;
    },
    record(event, subject) {
      const at = now();
      const current = Math.floor(at / windowMs);
      if (current !== window) {
        flush();
        window = current;
      }
      counted.set(subject, { event, reads: 0, longestMs: 0, lastAt: at });
      rows.record(event, at);
      if (!timer) {
        timer = setTimeout(flush, (current + 1) * windowMs - at);
        timer.unref();
      }
    },
    flush,
  };
}
