/**
 * A housekeeping pass on a SQLite file, in a worker thread with its own connection (off-thread.ts
 * starts it). Every statement and transaction takes a turn from the server's connection first, so the
 * server's writes wait at its gate rather than for SQLite's lock, and its reads never wait. Checkpoints
 * run here, between turns: the server's own are paused for the pass.
 */
import { closeSync, fsyncSync, openSync, statSync } from 'node:fs';
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

/** How long a checkpoint inside a turn waits for the server's readers to leave the WAL. */
const IN_TURN_WAIT_MS = 20;
/** Steps of shrinking the WAL that may leave it as it was (a reader stayed in it), beyond the steps needed. */
const SHRINK_RETRIES = 8;

/**
 * Checkpoints on a connection of their own, in two steps. Between turns, a PASSIVE checkpoint (it takes
 * no write lock: https://sqlite.org/c3ref/wal_checkpoint_v2.html) copies what the WAL holds back into
 * the file, the long part, while the server goes on writing. SQLite syncs the file after a checkpoint
 * only when it copied up to the WAL's current end, which a server write during those seconds moves, so
 * the file is synced here too: otherwise the next checkpoint's sync, inside a turn, writes out
 * everything this one copied. The WAL only starts again from its beginning when a write transaction
 * begins with every frame copied back and no reader in the WAL
 * (https://sqlite.org/wal.html#avoiding_excessively_large_wal_files), so the next turn starts with a
 * RESTART checkpoint: it copies what the server wrote meanwhile (a few pages) and waits, briefly, for
 * the server's readers to leave the WAL, and the turn's batch then starts it again.
 */
const checkpointer = openSqliteFile(request.path, { planAtOpen: false, walAutocheckpoint: 0 });
// A reader that streams an export holds its snapshot for seconds: the turn does not wait for it.
checkpointer.pragma(`busy_timeout = ${IN_TURN_WAIT_MS}`);
const databaseFile = openSync(request.path, 'r');
function checkpointBetweenTurns(): void {
  checkpointer.pragma('wal_checkpoint(PASSIVE)');
  fsyncSync(databaseFile);
}
let lastCheckpoint = performance.now();
/** Set by a checkpoint between turns: the next turn copies back what was written since. */
let restartWal = false;
function checkpointNowAndThen(): void {
  if (performance.now() - lastCheckpoint < request.checkpointEveryMs) return;
  checkpointBetweenTurns();
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
      if (restartWal) checkpointer.pragma('wal_checkpoint(RESTART)');
      restartWal = false;
      resolve(giveBack);
    };
    send({ type: 'turn' });
  });

/**
 * The WAL file keeps the size it grew to, and truncating it takes time in proportion to the size cut:
 * on a large database, in one turn, longer than a request should wait. So it is shrunk a step
 * (`walShrinkStepBytes`) per turn: SQLite truncates the WAL to `journal_size_limit` at the first
 * commit after it starts again (https://sqlite.org/pragma.html#pragma_journal_size_limit), and each
 * turn's commit is a write of the database header's user_version to the value it has (one page,
 * nothing changed). Bounded: a step that
 * did not shrink it (a reader stayed in the WAL) is tried again a few times, then left to the last turn.
 */
async function shrinkWal(): Promise<void> {
  const step = request.walShrinkStepBytes;
  let tries = Math.ceil(walBytes() / step) + SHRINK_RETRIES;
  for (let size = walBytes(); size > step && tries > 0; size = walBytes(), tries--) {
    checkpointer.pragma(`journal_size_limit = ${size - step}`);
    const endTurn = await takeTurn();
    try {
      checkpointer.pragma('wal_checkpoint(RESTART)');
      const version = checkpointer.pragma('user_version', { simple: true }) as number;
      checkpointer.pragma(`user_version = ${version}`);
    } finally {
      endTurn();
    }
  }
  checkpointer.pragma('journal_size_limit = -1');
}

function walBytes(): number {
  try {
    return statSync(`${request.path}-wal`).size;
  } catch {
    return 0;
  }
}

const db = openSqliteStore(request.path, {
  scopeChecks: false,
  planAtOpen: false,
  pageCacheKib: request.pageCacheKib,
  walAutocheckpoint: 0,
  takeTurn,
});

try {
  const counts = await purgeExpired(db, request.now, request.options);
  // The pass's pages are copied back first, outside a turn; then the WAL is shrunk step by step; then,
  // in a turn (no write can come in between), what the server wrote since is copied back and the
  // file truncated to nothing.
  checkpointBetweenTurns();
  await shrinkWal();
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
  closeSync(databaseFile);
  port.close();
}
