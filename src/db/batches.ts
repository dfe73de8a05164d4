/** Rows deleted per statement by purges, so a request waiting on the write lock waits for one batch at most. */
export const PURGE_BATCH = 500;

/** Runs `deleteBatch` until a batch deletes fewer than `batch` rows; returns the total deleted. */
export function deleteInBatches(deleteBatch: (batch: number) => number, batch = PURGE_BATCH): number {
  let total = 0;
  for (;;) {
    const n = deleteBatch(batch);
    total += n;
    if (n < batch) return total;
  }
}
