import { afterEach, describe, expect, it, vi } from 'vitest';
import { BatchSize, deleteInBatches } from '../../src/db/batches.js';

/** Purge batches: sized by time on SQLite (a batch holds the event loop), fixed on PostgreSQL. */
describe('purge batch sizes', () => {
  afterEach(() => vi.restoreAllMocks());

  /** A batch that takes `ms` of (mocked) time. */
  function taking(ms: number) {
    let clock = 0;
    vi.spyOn(performance, 'now').mockImplementation(() => clock);
    return async (size: number) => {
      clock += ms;
      return size;
    };
  }

  it('SQLite: halves after a slow batch, down to a floor; doubles after quick ones, up to a ceiling', async () => {
    const slow = new BatchSize('sqlite');
    const start = slow.current;
    const batch = taking(200);
    await slow.run(batch);
    expect(slow.current).toBe(start / 2);
    for (let i = 0; i < 10; i++) await slow.run(batch);
    expect(slow.current).toBe(50);
    const quick = new BatchSize('sqlite');
    const fast = taking(1);
    for (let i = 0; i < 20; i++) await quick.run(fast);
    expect(quick.current).toBe(2_000);
  });

  it('PostgreSQL: always 500, however long a batch takes', async () => {
    const size = new BatchSize('postgres');
    await size.run(taking(5_000));
    expect(size.current).toBe(500);
  });

  it('deleteInBatches stops at the first batch that deletes fewer rows than asked, and sums them', async () => {
    let left = 1_234;
    const asked: number[] = [];
    const total = await deleteInBatches('postgres', async (n) => {
      asked.push(n);
      const done = Math.min(n, left);
      left -= done;
      return done;
    });
    expect(total).toBe(1_234);
    expect(asked).toEqual([500, 500, 500]);
  });
});
