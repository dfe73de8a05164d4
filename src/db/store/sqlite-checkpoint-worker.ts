/**
 * The SQLite file's checkpoints, on a worker thread with its own connection (sqlite-checkpoints.ts
 * starts it). A PASSIVE checkpoint takes no lock the server's connection needs
 * (https://sqlite.org/c3ref/wal_checkpoint_v2.html): the server goes on reading and writing while the
 * WAL is synced and copied back into the file here, and its own commits no longer do it.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openSqliteFile } from '../client.js';
import type { CheckpointerMessage, CheckpointerRequest } from './sqlite-checkpoints.js';

const port = parentPort;
if (!port) throw new Error('sqlite-checkpoint-worker runs as a worker thread');
const request = workerData as CheckpointerRequest;

// Copying pages back reads the WAL and writes the file: it needs next to no page cache of its own.
const connection = openSqliteFile(request.path, {
  planAtOpen: false,
  walAutocheckpoint: 0,
  pageCacheKib: 256,
});
// Another checkpoint already running (the housekeeping pass's) is not waited for: the next tick tries again.
connection.pragma('busy_timeout = 0');

let paused = false;
const timer = setInterval(() => {
  if (paused) return;
  try {
    // With nothing new in the WAL this reads its index and returns: no sync, no write.
    connection.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // SQLITE_BUSY from another checkpointer, or the file gone at shutdown: the next tick tries again.
  }
}, request.everyMs);

port.on('message', (message: CheckpointerMessage) => {
  if (message === 'pause') paused = true;
  else if (message === 'resume') paused = false;
  else {
    clearInterval(timer);
    connection.close();
    port.close();
  }
});
