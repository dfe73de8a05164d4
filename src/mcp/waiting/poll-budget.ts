import { alignUp, type TimerWheel, type WheelEntry } from './timer-wheel.js';

/** A poll that may have to wait for its turn: started once the budget lets it. */
export interface BudgetedPoll {
  /** The credential it reads with (./wait.ts:credentialScope): turns go round the credentials. */
  readonly scope: string;
  start(): void;
}

/**
 * At most `perSecond` upstream polls a second for the whole process: a token bucket holding one
 * second's worth, so a burst of due polls up to that size goes at once and a longer one is spread out.
 * Polls that find the bucket empty queue by credential and are started in turn across credentials (one
 * each, round the credentials that have one waiting), so a credential with a thousand waiting searches
 * does not hold back another's one.
 *
 * Why: each waiting search or run is read every few seconds (./poll-plan.ts, at most every
 * `pollMaxMs`), so the upstream requests grow with the calls waiting: 1,000 waiting searches would be
 * about 250 polls a second, each an HTTP request and its JSON for this process and a request for the
 * upstream, whose rate limits are per credential and unknown. With the budget, many
 * waiting calls are each read less often (1,000 at 40 a second, the default: every 25 s) and the process's cost
 * and the upstream's load stay bounded; a handful of calls is read exactly as the plan says. What it
 * costs: past `perSecond × pollMaxMs / 1000` jobs waiting at once, a finish is seen later.
 */
export class PollBudget implements WheelEntry {
  private tokens: number;
  private refilledAt: number;
  /** Polls waiting for a token, by credential; Map order is the turn order (served ones go last). */
  private readonly queues = new Map<string, BudgetedPoll[]>();
  private queued = 0;
  private draining = false;

  constructor(
    private readonly perSecond: number,
    private readonly wheel: TimerWheel,
    private readonly now: () => number = Date.now,
    /**
     * Queued polls are started in batches, at most this often: the tokens accrued since the last batch
     * at once (40 a second: 20 every 500 ms), so the process wakes twice a second for them
     * rather than fifty (./timer-wheel.ts:alignUp says why that matters).
     */
    private readonly batchMs = 500,
  ) {
    this.tokens = perSecond;
    this.refilledAt = now();
  }

  /** Starts `poll` now when the budget allows, else queues it for its turn. */
  request(poll: BudgetedPoll): void {
    this.refill();
    if (this.queued === 0 && this.tokens >= 1) {
      this.tokens -= 1;
      poll.start();
      return;
    }
    const queue = this.queues.get(poll.scope);
    if (queue) queue.push(poll);
    else this.queues.set(poll.scope, [poll]);
    this.queued += 1;
    this.drainLater();
  }

  /** Takes a queued poll out (its job ended); false when it was not queued. */
  withdraw(poll: BudgetedPoll): boolean {
    const queue = this.queues.get(poll.scope);
    const at = queue?.indexOf(poll) ?? -1;
    if (!queue || at < 0) return false;
    queue.splice(at, 1);
    if (queue.length === 0) this.queues.delete(poll.scope);
    this.queued -= 1;
    return true;
  }

  /** Polls waiting for their turn. */
  get waiting(): number {
    return this.queued;
  }

  /** About how long a poll queued now would wait for its turn (every queued poll goes first). */
  queueDelayMs(): number {
    return ((this.queued + 1) * 1000) / this.perSecond;
  }

  /** The drain tick (WheelEntry): starts as many queued polls as the tokens since allow, in turn. */
  fire(): void {
    this.draining = false;
    this.refill();
    while (this.tokens >= 1 && this.queued > 0) {
      const [scope, queue] = this.queues.entries().next().value as [string, BudgetedPoll[]];
      const poll = queue.shift() as BudgetedPoll;
      this.queues.delete(scope);
      if (queue.length > 0) this.queues.set(scope, queue);
      this.queued -= 1;
      this.tokens -= 1;
      poll.start();
    }
    if (this.queued > 0) this.drainLater();
  }

  private refill(): void {
    const now = this.now();
    this.tokens = Math.min(this.perSecond, this.tokens + ((now - this.refilledAt) * this.perSecond) / 1000);
    this.refilledAt = now;
  }

  /** The next drain: once the next token will have accrued, at the next batch's instant. */
  private drainLater(): void {
    if (this.draining) return;
    this.draining = true;
    const wait = Math.max(0, ((1 - this.tokens) * 1000) / this.perSecond);
    this.wheel.schedule(this, alignUp(this.now() + wait, this.batchMs));
  }
}
