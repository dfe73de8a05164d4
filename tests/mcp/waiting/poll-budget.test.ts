import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type BudgetedPoll, PollBudget } from '../../../src/mcp/waiting/poll-budget.js';
import { TimerWheel } from '../../../src/mcp/waiting/timer-wheel.js';

/**
 * The poll budget on fake timers: when each poll starts is exact, so the tests say how many start in
 * each second without measuring wall-clock time.
 */
const T0 = 1_000_000;
beforeEach(() => {
  vi.useFakeTimers({ now: T0 });
});
afterEach(() => {
  vi.useRealTimers();
});

function polls(scope: string, n: number, started: Array<[string, number]>): BudgetedPoll[] {
  return Array.from({ length: n }, (_, i) => ({
    scope,
    start: () => started.push([`${scope}${i}`, Date.now() - T0]),
  }));
}

describe('PollBudget', () => {
  it('lets a burst of one second’s worth go at once and spreads the rest at the rate', async () => {
    const budget = new PollBudget(10, new TimerWheel(20));
    const started: Array<[string, number]> = [];
    for (const p of polls('a', 25, started)) budget.request(p);
    expect(started).toHaveLength(10);
    expect(budget.waiting).toBe(15);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(started).toHaveLength(20);
    await vi.advanceTimersByTimeAsync(500);
    expect(started).toHaveLength(25);
    expect(budget.waiting).toBe(0);
    // Never faster than the rate once the first second's tokens are spent, started in batches at
    // most every 500 ms.
    for (const [, at] of started.slice(10)) {
      expect(started.filter(([, t]) => t > 0 && t <= at).length).toBeLessThanOrEqual((at / 1_000) * 10);
    }
    expect(new Set(started.map(([, at]) => at)).size).toBeLessThanOrEqual(1 + 1_500 / 500);
  });

  it('never starts more than the rate allows over a long run', async () => {
    const budget = new PollBudget(20, new TimerWheel(20));
    const started: Array<[string, number]> = [];
    // A steady 100 requests a second for 10 s, five times the budget.
    for (let t = 0; t < 10_000; t += 10) {
      for (const p of polls(`s${t % 3}`, 1, started)) budget.request(p);
      await vi.advanceTimersByTimeAsync(10);
    }
    expect(started.length).toBeLessThanOrEqual(20 + 20 * 10);
    expect(started.length).toBeGreaterThanOrEqual(20 * 10);
  });

  it('serves queued credentials in turn, so one with many waiting does not hold back another', async () => {
    const budget = new PollBudget(2, new TimerWheel(20));
    const started: Array<[string, number]> = [];
    for (const p of polls('busy', 12, started)) budget.request(p);
    for (const p of polls('quiet', 2, started)) budget.request(p);
    // The first two went at once (the bucket's burst); then one each in turn.
    await vi.advanceTimersByTimeAsync(2_000);
    expect(started.map(([name]) => name)).toEqual(['busy0', 'busy1', 'busy2', 'quiet0', 'busy3', 'quiet1']);
  });

  it('a withdrawn poll never starts and gives its turn to the next', async () => {
    const budget = new PollBudget(1, new TimerWheel(20));
    const started: Array<[string, number]> = [];
    const [first, second, third] = polls('a', 3, started) as [BudgetedPoll, BudgetedPoll, BudgetedPoll];
    budget.request(first);
    budget.request(second);
    budget.request(third);
    expect(budget.withdraw(second)).toBe(true);
    expect(budget.withdraw(second)).toBe(false);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(started).toEqual([
      ['a0', 0],
      ['a2', 1_000],
    ]);
  });
});
