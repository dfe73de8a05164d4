import { moduleWorker, type SqliteSharing } from '../db/store/index.js';
import type { PassMessage, PassRequest, PurgeCounts, PurgeOptions, WorkerReply } from './pass.js';

/**
 * The worker connection's page cache: a pass reads random pages of every index it deletes from, and
 * the server's 2 MB cache (db/client.ts) holds few of them. Given back when the worker ends.
 */
const PASS_PAGE_CACHE_KIB = 64 * 1024;
/**
 * How often the worker checkpoints. Each checkpoint syncs the file, and a page the pass changed many
 * times meanwhile is copied back once; the WAL grows in between and is truncated at the end.
 */
const CHECKPOINT_EVERY_MS = 5_000;
/**
 * How much of the WAL file one turn truncates when the pass has ended: truncating takes time in
 * proportion to the size cut, and a turn holds the server's writes (docs/performance.md, Figures
 * behind the code).
 */
const WAL_SHRINK_STEP_BYTES = 64 * 1024 * 1024;

/** What a test may set smaller, to see the steps on a small file. */
export interface PassTuning {
  walShrinkStepBytes?: number;
}

/** A pass running in a worker thread; `stop()` ends it (what it committed stays committed). */
export interface RunningPass {
  counts: Promise<PurgeCounts>;
  stop(): Promise<void>;
}

/**
 * Runs the housekeeping pass on a worker thread with its own connection to the SQLite file. On the
 * event loop a pass's statements, commits and checkpoints (which sync the file) held every request;
 * here the server only lends the worker turns to write, one statement or batch at a time, and its own
 * automatic checkpoints are paused meanwhile (the worker's cover them, and shrink the WAL at the end).
 */
export function passOffThread(
  file: SqliteSharing,
  now: number,
  options: PurgeOptions,
  tuning: PassTuning = {},
): RunningPass {
  const request: PassRequest = {
    path: file.path,
    now,
    options,
    pageCacheKib: PASS_PAGE_CACHE_KIB,
    checkpointEveryMs: CHECKPOINT_EVERY_MS,
    walShrinkStepBytes: tuning.walShrinkStepBytes ?? WAL_SHRINK_STEP_BYTES,
  };
  const resumeCheckpoints = file.pauseCheckpoints();
  const worker = moduleWorker(import.meta.url, 'sqlite-pass-worker', request);
  let exited = false;
  let endTurn: (() => void) | null = null;
  const counts = new Promise<PurgeCounts>((resolve, reject) => {
    worker.on('message', (reply: WorkerReply) => {
      if (reply.type === 'turn')
        void file.lendWriteTurn(
          () =>
            new Promise<void>((ended) => {
              // A turn granted after the worker ended (it asked, then was stopped) ends at once.
              if (exited) return ended();
              endTurn = ended;
              worker.postMessage('go' satisfies PassMessage);
            }),
        );
      else if (reply.type === 'done') finishTurn();
      else resolve(reply.counts);
    });
    worker.on('error', reject);
    worker.on('exit', (code) => {
      // A worker stopped mid-turn: its connection closed with it, rolling back what it had not committed.
      exited = true;
      finishTurn();
      resumeCheckpoints();
      reject(new Error(`the housekeeping worker ended (exit code ${code}) before its pass did`));
    });
  });
  function finishTurn() {
    const ended = endTurn;
    endTurn = null;
    ended?.();
  }
  return {
    counts,
    async stop() {
      await worker.terminate();
    },
  };
}
