/** How many polls may be brought forward to a predicted finish, per backoff ramp. */
const MAX_ETA_POLLS = 3;
/** How long after the predicted finish the first early poll goes; each further one waits twice as long. */
const ETA_MARGIN_MS = 200;

/**
 * When to read a long upstream job again. Two rules:
 *
 * - Backoff: the first poll after `initialMs`, each next delay twice the last, up to `maxMs`. When the
 *   job reports 100 % but is not done yet (a search whose results are still being written, which
 *   upstream says is brief), the backoff starts over once from `initialMs`. So a wait of W seconds
 *   costs at most 2·log2(W / initial) + W / max polls, the bound `npm run bench` checks.
 * - Prediction: while the job reports a rising percentage, its finish is extrapolated from the first
 *   reading above 0 % of this ramp and the latest one; when that falls before the next backoff poll,
 *   a poll goes just after it instead (at most three per ramp, each later miss further past the
 *   estimate). A search that reports its progress is then seen finished within a fraction of a second,
 *   where fixed 5 s polling sees it 2.5 s late on average.
 */
export class PollPlan {
  private delay: number;
  private reset = false;
  private first: { at: number; pct: number } | null = null;
  private early = 0;

  constructor(
    private readonly initialMs: number,
    private readonly maxMs: number,
  ) {
    this.delay = initialMs;
  }

  /** The delay before the first poll. */
  start(): number {
    const d = this.delay;
    this.delay = Math.min(this.delay * 2, this.maxMs);
    return d;
  }

  /** After a poll at `now` that read `pct` (0–100) and did not end the wait: the delay to the next. */
  next(now: number, pct: number): number {
    if (pct >= 100 && !this.reset) {
      this.reset = true;
      this.delay = this.initialMs;
      this.first = null;
      this.early = 0;
    }
    let d = this.delay;
    this.delay = Math.min(this.delay * 2, this.maxMs);
    if (!(pct > 0 && pct < 100)) return d;
    if (this.first === null || pct < this.first.pct) {
      this.first = { at: now, pct };
      return d;
    }
    if (pct > this.first.pct && this.early < MAX_ETA_POLLS) {
      const left = ((100 - pct) * (now - this.first.at)) / (pct - this.first.pct);
      const predicted = left + ETA_MARGIN_MS * 2 ** this.early;
      if (predicted < d) {
        d = Math.max(predicted, ETA_MARGIN_MS);
        this.early += 1;
      }
    }
    return d;
  }
}
