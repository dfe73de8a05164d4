import { describe, expect, it } from 'vitest';
import { DEFAULT_IDLE_GC, shouldCollect } from '../../src/housekeeping/idle-gc.js';
import { spawnProcess } from '../helpers/process.js';

const MB = 2 ** 20;
const second = 1_000_000;

describe('idle collection: when', () => {
  const options = DEFAULT_IDLE_GC;
  it('collects when the last interval was quiet and the heap grew since the last collection', () => {
    expect(
      shouldCollect({ cpuUs: 0.01 * second, wallUs: 10 * second, heapBytes: 250 * MB }, 40 * MB, options),
    ).toBe(true);
  });
  it('does nothing under load, however large the heap', () => {
    expect(
      shouldCollect({ cpuUs: 3 * second, wallUs: 10 * second, heapBytes: 250 * MB }, 40 * MB, options),
    ).toBe(false);
  });
  it('does nothing while quiet when the heap has not grown by the threshold (once per burst)', () => {
    expect(shouldCollect({ cpuUs: 0, wallUs: 10 * second, heapBytes: 60 * MB }, 40 * MB, options)).toBe(
      false,
    );
  });
});

describe('idle collection: a real process', () => {
  it('gives the heap of a burst back once the process is quiet', async () => {
    const child = spawnProcess(
      'node',
      ['--import', 'tsx', 'tests/housekeeping/fixtures/idle-gc-burst.ts'],
      {},
    );
    const { code } = await child.exit();
    const lines = child
      .stdout()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { stage: string; heap: number; before?: number; after?: number });
    const stage = (name: string) => lines.find((l) => l.stage === name);
    expect(code, child.stderr()).toBe(0);
    const burst = stage('after burst');
    const collected = stage('collected');
    expect(burst?.heap).toBeGreaterThan((stage('start')?.heap ?? 0) + 16 * MB);
    // What the burst left is returned, down to near where the process started.
    expect(collected?.after).toBeLessThan((burst?.heap ?? 0) / 2);
  });
});
