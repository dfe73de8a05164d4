import { once } from 'node:events';
import type { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';
import { moduleWorker } from './module-worker.js';

export interface CheckpointerRequest {
  path: string;
  everyMs: number;
}
export type CheckpointerMessage = 'pause' | 'resume' | 'stop';

/** How often the worker checkpoints: the WAL holds about a second of writes. */
const EVERY_MS = 1_000;
/**
 * Writes on the server's connection before the worker starts: a process that writes little (the
 * CLI's, most tests') never starts a thread, and SQLite's own checkpoints, which a few writes never
 * reach, stay as they are.
 */
export const START_AFTER_WRITES = 100;
/**
 * The server connection's own automatic checkpoint while the worker runs: a backstop, should the
 * worker fall behind or stop, at a WAL of about 40 MB (4 KiB pages).
 */
export const BACKSTOP_PAGES = 10_000;
const STOP_WAIT_MS = 2_000;

/**
 * Where the server's checkpoints run. SQLite checkpoints inside the commit that crosses
 * `wal_autocheckpoint` pages (https://sqlite.org/wal.html#automatic_checkpoint): on the event loop, an
 * fsync of the WAL and of the file inside one request, every few hundred writes, which was the proxied
 * call's p99 (docs/performance.md, "Round 3: where the proxied call's tail went"). Once the connection
 * has written a little, a worker thread (sqlite-checkpoint-worker.ts) checkpoints each second instead,
 * and the connection's own checkpoint is kept only as a backstop at a larger WAL.
 */
export class SqliteCheckpoints {
  private writes = 0;
  private worker: Worker | null = null;
  private failed = false;
  private closed = false;
  private paused = false;

  constructor(
    private readonly path: string,
    private readonly connection: Database.Database,
    /** The connection's wal_autocheckpoint without a worker. */
    private readonly ownPages = 1_000,
  ) {}

  /** A write on the server's connection: counted, and the worker started at the START_AFTER_WRITES-th. */
  noteWrite(): void {
    if (this.worker || this.failed || this.closed || ++this.writes < START_AFTER_WRITES) return;
    this.start();
  }

  /**
   * Stops every checkpoint but the caller's until the returned function is called: the housekeeping
   * pass checkpoints on its own connection while it runs.
   */
  pause(): () => void {
    this.paused = true;
    this.worker?.postMessage('pause' satisfies CheckpointerMessage);
    this.setPages(0);
    return () => {
      this.paused = false;
      this.worker?.postMessage('resume' satisfies CheckpointerMessage);
      this.setPages(this.worker ? BACKSTOP_PAGES : this.ownPages);
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    const worker = this.worker;
    if (!worker) return;
    const exited = once(worker, 'exit');
    worker.postMessage('stop' satisfies CheckpointerMessage);
    const timer = setTimeout(() => void worker.terminate(), STOP_WAIT_MS);
    await exited.catch(() => {});
    clearTimeout(timer);
  }

  private start(): void {
    const request: CheckpointerRequest = { path: this.path, everyMs: EVERY_MS };
    const worker = moduleWorker(import.meta.url, 'sqlite-checkpoint-worker', request);
    worker.unref();
    this.worker = worker;
    if (this.paused) worker.postMessage('pause' satisfies CheckpointerMessage);
    else this.setPages(BACKSTOP_PAGES);
    const lost = () => {
      if (this.worker !== worker) return;
      // The worker failed (or stopped at close): the connection checkpoints itself again.
      this.worker = null;
      this.failed = true;
      if (!this.paused) this.setPages(this.ownPages);
    };
    worker.on('error', lost);
    worker.on('exit', lost);
  }

  private setPages(pages: number): void {
    if (this.connection.open) this.connection.pragma(`wal_autocheckpoint = ${pages}`);
  }
}
