import type { OpenStore } from '../db/store/index.js';
import type { Logger } from '../logger.js';
import { passOffThread } from './off-thread.js';
import { type PurgeCounts, type PurgeOptions, purgeExpired } from './pass.js';

export { type PurgeCounts, type PurgeOptions, purgeExpired } from './pass.js';

/** One housekeeping pass under way. */
export interface HousekeepingPass {
  counts: Promise<PurgeCounts>;
  /** Where its statements run: a worker thread's own connection, or this one's event loop. */
  where: 'worker thread' | 'event loop';
  /** Ends the pass: on a worker thread at once (what it committed stays, its open batch rolls back). */
  stop(): Promise<void>;
}

/**
 * Starts one pass. On a SQLite file it runs on a worker thread (off-thread.ts): on the event loop its
 * statements, commits and checkpoints held every request. On PostgreSQL, whose statements wait off the
 * event loop anyway, and on a SQLite database in memory (no second connection can see it), here.
 */
export function startHousekeepingPass(
  db: OpenStore,
  now: number,
  options: PurgeOptions = {},
): HousekeepingPass {
  if (db.sqliteFile) return { ...passOffThread(db.sqliteFile, now, options), where: 'worker thread' };
  const counts = purgeExpired(db, now, options);
  return {
    counts,
    where: 'event loop',
    // Not interrupted here: stop waits for the pass to end (each batch is atomic either way).
    stop: () =>
      counts.then(
        () => undefined,
        () => undefined,
      ),
  };
}

/**
 * Runs a housekeeping pass every `intervalMs` on an unref'd timer; returns a stop function, which also
 * ends a pass under way on a worker thread.
 */
export function startHousekeeping(
  db: OpenStore,
  logger: Logger,
  intervalMs = 15 * 60_000,
  options: PurgeOptions = {},
): () => void {
  let running: HousekeepingPass | null = null;
  let stopped = false;
  const timer = setInterval(() => {
    // A slow round (a large first purge) is not overlapped by the next.
    if (running) return;
    const started = performance.now();
    const pass = startHousekeepingPass(db, Date.now(), options);
    running = pass;
    pass.counts
      .then((counts) => {
        const durationMs = Math.round(performance.now() - started);
        if (Object.values(counts).some((n) => n > 0))
          logger.info({ purged: counts, durationMs, where: pass.where }, 'housekeeping');
      })
      .catch((error: unknown) => {
        if (!stopped) logger.error({ err: error }, 'housekeeping failed');
      })
      .finally(() => {
        running = null;
      });
  }, intervalMs);
  timer.unref();
  return () => {
    stopped = true;
    clearInterval(timer);
    if (running?.where === 'worker thread') void running.stop();
  };
}
