/**
 * A housekeeping pass on a SQLite file, in a worker thread with its own connection (off-thread.ts
 * starts it). Every statement and transaction takes a turn from the server's connection first, so the
 * server's writes wait at its gate rather than for SQLite's lock, and its reads never wait. Checkpoints
 * run here, between turns: the server's own are paused for the pass.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openSqliteFile } from '../db/client.js';
import { openSqliteStore } from '../db/store/index.js';
import { type PassMessage, type PassRequest, purgeExpired, type WorkerReply } from './pass.js';

const port = parentPort;
if (!port) throw new Error('sqlite-pass-worker runs as a worker thread');
const request = workerData as PassRequest;

let granted: (() => void) | null = null;
port.on('message', (message: PassMessage) => {
  if (message === 'go') granted?.();
});
const send = (reply: WorkerReply) => port.postMessage(reply);

/**
 * Checkpoints on a connection of their own, in two steps. Between turns, a PASSIVE checkpoint (it takes
 * no write lock: https://sqlite.org/c3ref/wal_checkpoint_v2.html) copies what the WAL holds back into
 * the file and syncs it, the long part, while the server goes on writing. The WAL only starts again
 * from its beginning when a write transaction begins with every frame copied back
 * (https://sqlite.org/wal.html#avoiding_excessively_large_wal_files), so the next turn starts by
 * copying what the server wrote meanwhile (a few pages) before its batch: without it, the WAL keeps
 * growing while the server writes, and every read searches its index.
 */
const checkpointer = openSqliteFile(request.path, { planAtOpen: false });
const checkpoint = () => checkpointer.pragma('wal_checkpoint(PASSIVE)');
let lastCheckpoint = performance.now();
/** Set by a checkpoint between turns: the next turn copies back what was written since. */
let restartWal = false;
function checkpointNowAndThen(): void {
  if (performance.now() - lastCheckpoint < request.checkpointEveryMs) return;
  checkpoint();
  lastCheckpoint = performance.now();
  restartWal = true;
}

const giveBack = () => {
  send({ type: 'done' });
  checkpointNowAndThen();
};
/** Waits for the server's connection to lend a turn to write; the function returned gives it back. */
const takeTurn = () =>
  new Promise<() => void>((resolve) => {
    granted = () => {
      granted = null;
      if (restartWal) checkpoint();
      restartWal = false;
      resolve(giveBack);
    };
    send({ type: 'turn' });
  });
const db = openSqliteStore(request.path, {
  scopeChecks: false,
  planAtOpen: false,
  pageCacheKib: request.pageCacheKib,
  walAutocheckpoint: 0,
  takeTurn,
});

try {
  const counts = await purgeExpired(db, request.now, request.options);
  // The WAL file keeps the size it grew to. The pass's pages are copied back first, outside a turn;
  // then, in a turn (no write can come in between), what the server wrote since, and the file is
  // truncated to nothing.
  checkpoint();
  const endTurn = await takeTurn();
  try {
    checkpointer.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    endTurn();
  }
  send({ type: 'result', counts });
} finally {
  await db.close();
  checkpointer.close();
  port.close();
}
