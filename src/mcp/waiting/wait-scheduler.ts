import { metrics } from '../../metrics/index.js';
import { otel } from '../../telemetry/index.js';
import { UpstreamError } from '../../upstream/errors.js';
import { isTransient } from '../../upstream/retry-policy.js';
import { PollBudget } from './poll-budget.js';
import { PollPlan } from './poll-plan.js';
import { alignUp, TimerWheel } from './timer-wheel.js';
import { Job, type JobScheduler, Waiter } from './wait-job.js';
import { sharedJobKey, type WaitOutcome, type WaitRequest } from './wait-request.js';

/**
 * The one scheduler every waiting tool call shares, so that a waiting call holds little more than its
 * response stream. A wait is a small record in a job; jobs sit on one timer wheel; a poll
 * runs only when due, and callers waiting on the same upstream job with the same credential share it.
 * A waiter leaves on its signal (cancelled), at its deadline (after one last poll, as a caller would
 * read the job before giving up, or once `lastPollMs` has passed without its answer), or at shutdown
 * (at once, with the latest record).
 */
export class WaitScheduler implements JobScheduler {
  private readonly wheel: TimerWheel;
  private readonly budget: PollBudget;
  private readonly jobs = new Map<string, Job<unknown>>();
  private readonly all = new Set<Job<unknown>>();

  /**
   * Planned polls are moved up to a multiple of half the first delay (250 ms by default), so polls of
   * different jobs falling due close together go in one wake-up (./timer-wheel.ts:alignUp).
   */
  readonly pollStep: number;

  constructor(
    private readonly options: { pollInitialMs: number; pollMaxMs: number; pollsPerSecond: number },
    private readonly stopWaiting: AbortSignal,
    private readonly now: () => number = Date.now,
    /** The wheel to share (the SSE keep-alives' in handler.ts: one timer for both). */
    wheel: TimerWheel = new TimerWheel(20, now),
  ) {
    this.wheel = wheel;
    this.pollStep = options.pollInitialMs / 2;
    this.budget = new PollBudget(options.pollsPerSecond, this.wheel, now);
    stopWaiting.addEventListener('abort', () => this.stopAll(), { once: true });
  }

  /**
   * Waits for the job `request` describes; `scope` keeps apart callers of different credentials. The
   * caller leaves when `signal` aborts, and is told of every record read (`onRecord`). The outcome
   * itself (not a promise) when there is nothing to wait for.
   */
  wait<T>(
    scope: string,
    request: WaitRequest<T>,
    signal: AbortSignal,
    onRecord: (record: T) => void,
  ): WaitOutcome<T> | Promise<WaitOutcome<T>> {
    const now = this.now();
    if (request.isDone(request.initial, now)) return { kind: 'done', record: request.initial };
    if (signal.aborted) return { kind: 'cancelled', record: request.initial };
    if (this.stopWaiting.aborted) return { kind: 'timeout', record: request.initial };
    const key = request.key === null ? null : sharedJobKey(scope, request.key);
    let job = (key === null ? undefined : this.jobs.get(key)) as Job<T> | undefined;
    if (!job) {
      job = new Job(
        this,
        scope,
        key,
        request,
        new PollPlan(this.options.pollInitialMs, this.options.pollMaxMs),
        now,
      );
      if (key !== null) this.jobs.set(key, job as Job<unknown>);
      this.all.add(job as Job<unknown>);
    }
    const target = job;
    return new Promise<WaitOutcome<T>>((resolve) => {
      metrics.waitingCalls.inc();
      const leaveAt =
        request.lastPollMs === undefined
          ? Number.POSITIVE_INFINITY
          : now + request.maxWaitMs + request.lastPollMs;
      const waiter = new Waiter(target, now + request.maxWaitMs, leaveAt, signal, onRecord, resolve);
      target.waiters.add(waiter);
      if (request.lastPollMs !== undefined) this.wheel.schedule(waiter, leaveAt);
      // A caller joining a shared job sees where it stands now.
      if (target.record !== request.initial) onRecord(target.record);
      this.arm(target);
    });
  }

  /**
   * When the shared job (its sharedJobKey) is next read upstream (its planned poll, or its
   * turn in the poll budget when it is due already), or undefined when nobody waits on it here or it
   * is being read. A task's clients are told to poll no sooner than this: what
   * they would read cannot change before.
   */
  plannedPoll(sharedKey: string): number | undefined {
    const job = this.jobs.get(sharedKey);
    if (!job || job.polling) return undefined;
    // Due but waiting for the poll budget's turn: read once the polls queued before it have gone.
    if (job.queued) return this.now() + this.budget.queueDelayMs();
    return job.plannedAt;
  }

  /** Waiting callers, the distinct upstream jobs they wait on, and the polls waiting for their turn. */
  get size(): { waiters: number; jobs: number; queuedPolls: number } {
    let waiters = 0;
    for (const job of this.all) waiters += job.waiters.size;
    return { waiters, jobs: this.all.size, queuedPolls: this.budget.waiting };
  }

  /**
   * When the job is next due: the backoff's plan, or the earliest waiter's deadline if sooner; while
   * its poll waits for the budget's turn, only that deadline.
   */
  private arm<T>(job: Job<T>): void {
    if (job.polling) return; // re-armed when the poll in flight ends
    let at = job.queued ? Number.POSITIVE_INFINITY : job.plannedAt;
    for (const waiter of job.waiters) if (waiter.deadline < at) at = waiter.deadline;
    if (at !== Number.POSITIVE_INFINITY) this.wheel.schedule(job, at);
  }

  /**
   * A job is due (./wait-job.ts:Job.fire): its poll goes when the poll budget allows, except the one
   * last poll of a caller whose wait limit has come, which is not held back (a caller leaves at its limit).
   */
  due<T>(job: Job<T>): void {
    const now = this.now();
    for (const waiter of job.waiters) {
      if (waiter.deadline <= now) {
        this.unqueue(job);
        this.poll(job);
        return;
      }
    }
    if (job.queued) return;
    job.queued = true;
    this.budget.request(job);
    // Started at once, or queued: then its callers' limits still need watching.
    if (job.queued) this.arm(job);
  }

  /** Takes the job's poll out of the budget's queue, if it waits there. */
  private unqueue<T>(job: Job<T>): void {
    if (job.queued) this.budget.withdraw(job);
    job.queued = false;
  }

  /** The job's poll, now (its turn in the budget, or a caller's limit). */
  poll<T>(job: Job<T>): void {
    this.wheel.cancel(job);
    const controller = new AbortController();
    job.polling = controller;
    // The read need not outlast the last waiter to leave: its retries and time-outs fit before then.
    let until = 0;
    for (const waiter of job.waiters) if (waiter.leaveAt > until) until = waiter.leaveAt;
    const deadline = until === Number.POSITIVE_INFINITY ? undefined : until;
    const reading =
      job.trace === undefined
        ? job.spec.poll(controller.signal, deadline)
        : otel.t.within(job.trace, () => job.spec.poll(controller.signal, deadline));
    reading.then(
      (record) => {
        if (job.polling !== controller) return;
        job.polling = null;
        this.read(job, record);
      },
      (error: unknown) => {
        if (job.polling !== controller) return;
        job.polling = null;
        this.unread(job, error);
      },
    );
  }

  private read<T>(job: Job<T>, record: T): void {
    const now = this.now();
    for (const waiter of job.waiters) waiter.onRecord(record);
    if (job.spec.isDone(record, now)) {
      job.record = record;
      this.finish(job, (r) => ({ kind: 'done', record: r }));
      return;
    }
    for (const waiter of job.waiters) {
      if (waiter.deadline <= now) this.leave(job, waiter, { kind: 'timeout', record });
    }
    if (job.waiters.size === 0) return;
    job.record = job.spec.keep ? job.spec.keep(record) : record;
    job.plannedAt = alignUp(now + job.plan.next(now, job.spec.progress(record).percentage), this.pollStep);
    this.arm(job);
  }

  /**
   * A poll failed. A passing fault (a network error, a time-out, a 5xx, a 429 or an open circuit) ends
   * only the waits whose limit has come, with the error; the others wait on, the next poll planned as
   * after a read (or when the upstream said to come back), as a client would keep polling to its
   * deadline. A wait ended at once would send its caller straight back for the next call, a loop of
   * calls that fail at once while the upstream is down. Any other error ends every wait.
   */
  private unread<T>(job: Job<T>, error: unknown): void {
    const passing =
      error instanceof UpstreamError && (isTransient(error.kind) || error.kind === 'unavailable');
    if (!passing) {
      this.finish(job, (record) => ({ kind: 'unreadable', record, error }));
      return;
    }
    const now = this.now();
    for (const waiter of job.waiters) {
      if (waiter.deadline <= now) this.leave(job, waiter, { kind: 'unreadable', record: job.record, error });
    }
    if (job.waiters.size === 0) return;
    const planned = now + job.plan.next(now, job.spec.progress(job.record).percentage);
    job.plannedAt = alignUp(Math.max(planned, now + (error.retryAfterMs ?? 0)), this.pollStep);
    this.arm(job);
  }

  /** Ends the wait of every caller of `job` and forgets the job. */
  private finish<T>(job: Job<T>, outcome: (record: T) => WaitOutcome<T>): void {
    this.drop(job);
    const waiters = [...job.waiters];
    job.waiters.clear();
    for (const waiter of waiters) {
      this.wheel.cancel(waiter);
      waiter.resolve(outcome(job.record));
    }
  }

  /** One caller stops waiting (./wait-job.ts:Waiter.handleEvent: its signal aborted; or its deadline). */
  leave<T>(job: Job<T>, waiter: Waiter<T>, outcome: WaitOutcome<T>): void {
    if (!job.waiters.delete(waiter)) return;
    this.wheel.cancel(waiter);
    if (job.waiters.size === 0) this.drop(job);
    waiter.resolve(outcome);
  }

  private drop<T>(job: Job<T>): void {
    this.wheel.cancel(job);
    this.unqueue(job);
    job.polling?.abort(new Error('nobody waits any more'));
    job.polling = null;
    if (job.key !== null && this.jobs.get(job.key) === job) this.jobs.delete(job.key);
    this.all.delete(job as Job<unknown>);
  }

  private stopAll(): void {
    for (const job of [...this.all]) this.finish(job, (record) => ({ kind: 'timeout', record }));
  }
}
