import { describe, expect, it } from 'vitest';
import { spawnProcess } from '../helpers/process.js';

async function burst(mode: 'now' | 'timer') {
  const child = spawnProcess(
    'node',
    ['--expose-gc', '--import', 'tsx', 'tests/housekeeping/fixtures/native-heap-burst.ts', mode],
    {},
  );
  const { code } = await child.exit();
  expect(code, child.stderr()).toBe(0);
  return JSON.parse(child.stdout().trim()) as {
    start: number;
    freed: number;
    trimmed: number;
    released: boolean | null;
  };
}

describe('giving the C heap back (housekeeping/native-heap.ts)', () => {
  it('the periodic trimmer gives it back under load too, without being asked', async () => {
    const r = await burst('timer');
    expect(r.freed - r.start).toBeGreaterThan(30);
    expect(r.freed - r.trimmed).toBeGreaterThan((r.freed - r.start) / 2);
  });

  it('returns what a burst freed but glibc kept between live allocations', async () => {
    const r = await burst('now');
    // glibc keeps the freed burst (one allocation in 16 still lives between the freed ones)...
    expect(r.freed - r.start).toBeGreaterThan(30);
    // ...and malloc_trim gives most of it back.
    expect(r.released).toBe(true);
    expect(r.freed - r.trimmed).toBeGreaterThan((r.freed - r.start) / 2);
  });
});
