import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TimerWheel } from '../../../src/mcp/waiting/timer-wheel.js';

beforeEach(() => {
  vi.useFakeTimers({ now: 1_000_000 });
});
afterEach(() => {
  vi.useRealTimers();
});

function entry(log: Array<[string, number]>, name: string) {
  return { fire: () => log.push([name, Date.now() - 1_000_000]) };
}

describe('TimerWheel', () => {
  it('fires each entry once, never early, at most one slot late, in time order across slots', async () => {
    const wheel = new TimerWheel(20);
    const log: Array<[string, number]> = [];
    wheel.schedule(entry(log, 'c'), 1_000_000 + 3_000);
    wheel.schedule(entry(log, 'a'), 1_000_000 + 5);
    wheel.schedule(entry(log, 'b'), 1_000_000 + 990);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(log).toEqual([
      ['a', 20],
      ['b', 1_000],
      ['c', 3_000],
    ]);
    expect(wheel.size).toBe(0);
  });

  it('moves and cancels entries', async () => {
    const wheel = new TimerWheel(20);
    const log: Array<[string, number]> = [];
    const moved = entry(log, 'moved');
    const cancelled = entry(log, 'cancelled');
    wheel.schedule(moved, 1_000_000 + 100);
    wheel.schedule(cancelled, 1_000_000 + 200);
    wheel.schedule(moved, 1_000_000 + 400);
    wheel.cancel(cancelled);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(log).toEqual([['moved', 400]]);
  });

  it('an entry scheduled for now while the wheel fires runs in the next slot, not in a loop', async () => {
    const wheel = new TimerWheel(20);
    let fired = 0;
    const again = {
      fire: () => {
        fired += 1;
        if (fired < 3) wheel.schedule(again, Date.now());
      },
    };
    wheel.schedule(again, Date.now());
    await vi.advanceTimersByTimeAsync(100);
    expect(fired).toBe(3);
  });

  it('keeps one Node timer however many entries it holds', () => {
    const live = new Set<unknown>();
    const set = globalThis.setTimeout;
    const clear = globalThis.clearTimeout;
    vi.spyOn(globalThis, 'setTimeout').mockImplementation(((fn: () => void, ms?: number) => {
      const handle = set(fn, ms);
      live.add(handle);
      return handle;
    }) as typeof setTimeout);
    vi.spyOn(globalThis, 'clearTimeout').mockImplementation(((handle: NodeJS.Timeout) => {
      live.delete(handle);
      clear(handle);
    }) as typeof clearTimeout);
    const wheel = new TimerWheel(20);
    // In shuffled order, so the earliest entry changes many times.
    const entries = Array.from({ length: 10_000 }, (_, i) => ({
      fire: () => {},
      at: ((i * 7_919) % 10_000) * 13,
    }));
    for (const e of entries) wheel.schedule(e, Date.now() + 1_000 + e.at);
    expect(live.size).toBe(1);
    for (const e of entries) wheel.cancel(e);
    expect(wheel.size).toBe(0);
    vi.restoreAllMocks();
  });
});
