import type { Engine } from './store/index.js';

/**
 * Rows per statement where the size is fixed: purges that only read (a window of candidates to
 * check), and every batch on PostgreSQL, where a batch holds neither the event loop nor any lock a
 * request waits for (only the rows it deletes, which nobody uses), so fewer round trips win.
 */
export const PURGE_BATCH = 500;

/**
 * How long one purge batch may hold SQLite: a statement runs on the event loop, so a request that
 * arrives meanwhile waits for the batch to end, its commit included.
 */
const BATCH_TARGET_MS = 25;
const MIN_BATCH = 50;
const MAX_BATCH = 2_000;

/**
 * Lets the event loop take its other work (requests that arrived meanwhile) before the next batch. On
 * SQLite a statement runs on the event loop itself, and awaiting one that has finished is only a
 * microtask: without this, every batch of a purge would run back to back and requests would wait for
 * all of them.
 */
export function yieldToOthers(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * The size of the next batch. On SQLite from how long the last one took: halved when it took over
 * twice the target, doubled under half of it (what a row costs to delete depends on the table, its
 * indexes, the machine and what else runs: a delete of random keys from a large table dirties a page
 * per index per row, and the commit writes them). On PostgreSQL always PURGE_BATCH.
 */
export class BatchSize {
  private size: number;

  constructor(private readonly engine: Engine) {
    this.size = engine === 'sqlite' ? 100 : PURGE_BATCH;
  }

  get current(): number {
    return this.size;
  }

  async run<T>(batch: (size: number) => Promise<T>): Promise<T> {
    const started = performance.now();
    const result = await batch(this.size);
    if (this.engine !== 'sqlite') return result;
    const ms = performance.now() - started;
    if (ms > 2 * BATCH_TARGET_MS) this.size = Math.max(MIN_BATCH, Math.floor(this.size / 2));
    else if (ms < BATCH_TARGET_MS / 2) this.size = Math.min(MAX_BATCH, this.size * 2);
    return result;
  }
}

/**
 * Runs `deleteBatch` until a batch deletes fewer rows than it was asked for; returns the total
 * deleted. A batch is one statement on its own (no transaction around the loop), sized by BatchSize,
 * and other work runs between two.
 */
export async function deleteInBatches(
  engine: Engine,
  deleteBatch: (batch: number) => Promise<number>,
): Promise<number> {
  const size = new BatchSize(engine);
  let total = 0;
  for (;;) {
    const asked = size.current;
    const n = await size.run(deleteBatch);
    total += n;
    if (n < asked) return total;
    await yieldToOthers();
  }
}
