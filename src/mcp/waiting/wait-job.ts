import { metrics } from '../../metrics/index.js';
import { otel } from '../../telemetry/index.js';
import type { BudgetedPoll } from './poll-budget.js';
import type { PollPlan } from './poll-plan.js';
import { alignUp, type WheelEntry } from './timer-wheel.js';
import type { WaitOutcome, WaitRequest } from './wait-request.js';

/**
 * What a job and its waiters call back on: the scheduler (./wait-scheduler.ts:WaitScheduler). Named
 * here by what they use, so the scheduler and the records it keeps do not import each other.
 */
export interface JobScheduler {
  readonly pollStep: number;
  due<T>(job: Job<T>): void;
  poll<T>(job: Job<T>): void;
  leave<T>(job: Job<T>, waiter: Waiter<T>, outcome: WaitOutcome<T>): void;
}

/**
 * One caller waiting on a job. A class, and its own abort listener (an EventListener object), so a
 * waiter is one small object without closures of its own (the heap a waiting call holds stays small).
 * With a bound on its last poll it is also on the timer wheel: it leaves then, poll or no poll.
 */
export class Waiter<T> implements WheelEntry {
  constructor(
    readonly job: Job<T>,
    readonly deadline: number,
    /** When it leaves, poll or no poll (its deadline and last poll's bound; Infinity: unbounded). */
    readonly leaveAt: number,
    /** Aborted when this caller stops waiting (client cancelled or disconnected). */
    readonly signal: AbortSignal,
    /** Told of every record read while this caller waits (progress notifications). */
    readonly onRecord: (record: T) => void,
    private readonly settle: (outcome: WaitOutcome<T>) => void,
  ) {
    signal.addEventListener('abort', this, { once: true });
  }

  /** The signal's abort: the caller leaves with where the job stands now. */
  handleEvent(): void {
    this.job.scheduler.leave(this.job, this, { kind: 'cancelled', record: this.job.record });
  }

  /** Its last poll took too long (a slow or hanging upstream): it leaves with the latest record. */
  fire(): void {
    this.job.scheduler.leave(this.job, this, { kind: 'timeout', record: this.job.record });
  }

  resolve(outcome: WaitOutcome<T>): void {
    this.signal.removeEventListener('abort', this);
    metrics.waitingCalls.dec();
    this.settle(outcome);
  }
}

/** One upstream job being polled, for one or more waiters. */
export class Job<T> implements WheelEntry, BudgetedPoll {
  record: T;
  readonly waiters = new Set<Waiter<T>>();
  /** When the next poll is planned by the backoff (a waiter's deadline may bring it forward). */
  plannedAt: number;
  /** Aborts the poll in flight when the last waiter leaves. */
  polling: AbortController | null = null;
  /** Its poll is due and waits for the poll budget's turn. */
  queued = false;
  /** The trace context its polls run in (the first waiter's wait span), when telemetry is on. */
  readonly trace: unknown = otel.on ? otel.t.active() : undefined;

  constructor(
    readonly scheduler: JobScheduler,
    /** The credential it is read with (the budget's turns go round them). */
    readonly scope: string,
    readonly key: string | null,
    /** How to read the job: the first waiter's request. */
    readonly spec: WaitRequest<T>,
    readonly plan: PollPlan,
    now: number,
  ) {
    this.record = spec.initial;
    this.plannedAt = alignUp(now + plan.start(), scheduler.pollStep);
  }

  /** The poll is due (the timer wheel). */
  fire(): void {
    this.scheduler.due(this);
  }

  /** Its turn in the poll budget. */
  start(): void {
    this.queued = false;
    this.scheduler.poll(this);
  }
}
