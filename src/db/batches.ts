/** Rows deleted per statement by purges, so a request waiting on the write lock waits for one batch at most. */
export const PURGE_BATCH = 500;

/**
 * Runs `deleteBatch` until a batch deletes fewer than `batch` rows; returns the total deleted. A batch
 * is one statement on its own (no transaction around the loop), so other writers get in between.
 */
export async function deleteInBatches(
  deleteBatch: (batch: number) => Promise<number>,
  batch = PURGE_BATCH,
): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await deleteBatch(batch);
    total += n;
    if (n < batch) return total;
  }
}
