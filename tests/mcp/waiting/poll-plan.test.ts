import { describe, expect, it } from 'vitest';
import { PollPlan } from '../../../src/mcp/waiting/poll-plan.js';

/** Polls of a job observed through `pct(t)` until `doneAt` (ms): the times of the polls. */
function simulate(pct: (t: number) => number, doneAt: number, initialMs = 500, maxMs = 5_000): number[] {
  const plan = new PollPlan(initialMs, maxMs);
  const polls: number[] = [];
  let t = plan.start();
  for (;;) {
    polls.push(t);
    if (t >= doneAt) return polls;
    t += plan.next(t, pct(t));
  }
}

/** The bound `npm run bench` checks: 2·log2(W / 0.5 s) + W / 5 s polls for a wait of W. */
const bound = (waitMs: number) => 2 * Math.log2(waitMs / 500) + waitMs / 5_000;

describe('PollPlan', () => {
  it('backs off 0.5, 1, 2, 4 s and then polls every 5 s while nothing moves', () => {
    const polls = simulate(() => 0, 30_000);
    const gaps = polls.map((t, i) => t - (polls[i - 1] ?? 0));
    expect(gaps.slice(0, 7)).toEqual([500, 1_000, 2_000, 4_000, 5_000, 5_000, 5_000]);
  });

  it('starts the backoff over once when the job reports 100 % but is not done (results still being written)', () => {
    // Finished at 4 s, results written 20 s later.
    const polls = simulate((t) => (t >= 4_000 ? 100 : 0), 24_000);
    const after = polls.filter((t) => t > 7_500).map((t, i, a) => t - (a[i - 1] ?? 7_500));
    expect(after.slice(0, 4)).toEqual([500, 1_000, 2_000, 4_000]);
  });

  it('polls within a second of the finish its progress predicts, and stays within the bound', () => {
    // A search: pending 1 s, then 3 s of linear progress (reported rounded down, as upstream does).
    const search = (t: number) => (t < 1_000 ? 0 : Math.min(99, Math.floor(((t - 1_000) / 3_000) * 100)));
    const polls = simulate(search, 4_000);
    const seen = polls.at(-1) as number;
    expect(seen - 4_000).toBeGreaterThanOrEqual(0);
    expect(seen - 4_000).toBeLessThanOrEqual(1_000);
    // An agent run: pending 2 s, running 18 s.
    const run = (t: number) => (t < 2_000 ? 0 : Math.min(99, Math.floor(((t - 2_000) / 18_000) * 100)));
    const runPolls = simulate(run, 20_000);
    expect((runPolls.at(-1) as number) - 20_000).toBeLessThanOrEqual(1_000);
    expect(runPolls.length).toBeLessThanOrEqual(bound(20_000));
    // A realistic search: 15 s pending, 150 s of progress.
    const slow = (t: number) => (t < 15_000 ? 0 : Math.min(99, Math.floor(((t - 15_000) / 150_000) * 100)));
    const slowPolls = simulate(slow, 165_000);
    expect((slowPolls.at(-1) as number) - 165_000).toBeLessThanOrEqual(1_000);
    expect(slowPolls.length).toBeLessThanOrEqual(bound(165_000));
  });

  it('a prediction that misses brings at most three polls forward, each further past it', () => {
    // Progress runs at one speed, then stalls at 90 % until 60 s.
    const stall = (t: number) => Math.min(90, Math.floor(t / 100));
    const polls = simulate(stall, 60_000);
    const gaps = polls.map((t, i) => t - (polls[i - 1] ?? 0));
    expect(gaps.filter((g) => g < 500).length).toBeLessThanOrEqual(3);
    expect(polls.length).toBeLessThanOrEqual(bound(60_000));
  });

  it('stays within 2·log2(W / 0.5 s) + W / 5 s polls for any wait, with or without progress', () => {
    for (const waitMs of [3_000, 10_000, 25_000, 60_000, 300_000, 600_000]) {
      const blind = simulate(() => 0, waitMs);
      expect(blind.length, `blind ${waitMs}`).toBeLessThanOrEqual(bound(waitMs));
      const lagged = simulate((t) => (t >= waitMs / 4 ? 100 : 0), waitMs);
      expect(lagged.length, `lagged ${waitMs}`).toBeLessThanOrEqual(bound(waitMs));
      const linear = simulate((t) => Math.min(99, Math.floor((t / waitMs) * 100)), waitMs);
      expect(linear.length, `linear ${waitMs}`).toBeLessThanOrEqual(bound(waitMs));
    }
  });
});
