import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ToolContext } from '../../../src/mcp/tools/types.js';
import { DEFAULT_TOOL_OPTIONS } from '../../../src/mcp/tools/types.js';
import { progressReporter, type WaitSpec, waitFor } from '../../../src/mcp/waiting/wait.js';
import { WaitScheduler } from '../../../src/mcp/waiting/wait-scheduler.js';

/**
 * The shared scheduler of waiting calls, on fake timers: every poll time below is exact, so the tests
 * say when polls happen without measuring wall-clock time.
 */
const OPTIONS = { ...DEFAULT_TOOL_OPTIONS, pollInitialMs: 500, pollMaxMs: 5_000 };

function context(
  waits: WaitScheduler,
  signal: AbortSignal = new AbortController().signal,
  creds = { token: 't', userId: 'u' },
  progress: ToolContext['progress'] = () => {},
): ToolContext {
  return {
    upstream: null as never,
    creds,
    signal,
    stopWaiting: new AbortController().signal,
    progress,
    options: OPTIONS,
    waits,
  };
}

const idle = { percentage: 0, phase: 'pending', message: '' };

/** A job that is done once `done()` says so; records every poll's time (ms since the start). */
function job(done: () => boolean, key: string | null = null) {
  const polls: number[] = [];
  const started = Date.now();
  const spec: WaitSpec<string> = {
    key,
    initial: 'created',
    poll: async () => {
      polls.push(Date.now() - started);
      return done() ? 'finished' : 'running';
    },
    isDone: (r) => r === 'finished',
    progress: () => idle,
    maxWaitMs: 600_000,
  };
  return { spec, polls };
}

/** Every scheduler a test made, stopped after it: a wait left behind would stay in the process's gauge. */
const stops: AbortController[] = [];
function scheduler(options: typeof OPTIONS): WaitScheduler {
  const stop = new AbortController();
  stops.push(stop);
  return new WaitScheduler(options, stop.signal);
}

beforeEach(() => {
  vi.useFakeTimers({ now: new Date('2026-03-02T10:00:00Z') });
});
afterEach(() => {
  for (const stop of stops.splice(0)) stop.abort();
  vi.useRealTimers();
});

describe('waitFor on the shared scheduler', () => {
  it('polls with doubling delays up to the cap, then every cap', async () => {
    const waits = scheduler(OPTIONS);
    let finished = false;
    const { spec, polls } = job(() => finished);
    const outcome = waitFor(context(waits), spec);
    await vi.advanceTimersByTimeAsync(30_000);
    finished = true;
    await vi.advanceTimersByTimeAsync(5_000);
    expect(await outcome).toEqual({ kind: 'done', record: 'finished' });
    // 0.5, 1, 2, 4 s apart, then every 5 s (the wheel rounds up to its 20 ms slots, never early).
    const gaps = polls.map((t, i) => t - (polls[i - 1] ?? 0));
    expect(gaps.slice(0, 6)).toEqual([500, 1_000, 2_000, 4_000, 5_000, 5_000]);
    expect(waits.size).toEqual({ waiters: 0, jobs: 0, queuedPolls: 0 });
  });

  it('callers waiting on the same job with the same credential share its polls; other credentials do not', async () => {
    const waits = scheduler(OPTIONS);
    let finished = false;
    const shared = job(() => finished, 'keyword_search:7');
    const a = waitFor(context(waits), shared.spec);
    const b = waitFor(context(waits), { ...shared.spec, poll: shared.spec.poll });
    const other = job(() => finished, 'keyword_search:7');
    const c = waitFor(context(waits, undefined, { token: 't2', userId: 'u' }), other.spec);
    expect(waits.size).toEqual({ waiters: 3, jobs: 2, queuedPolls: 0 });
    await vi.advanceTimersByTimeAsync(8_000);
    finished = true;
    await vi.advanceTimersByTimeAsync(5_000);
    expect((await a).kind).toBe('done');
    expect((await b).kind).toBe('done');
    expect((await c).kind).toBe('done');
    // One poll sequence for a and b together, one for c.
    expect(shared.polls).toEqual(other.polls);
  });

  it('a caller who cancels leaves at once; the job goes on for the others and stops with the last', async () => {
    const waits = scheduler(OPTIONS);
    const { spec, polls } = job(() => false, 'run:1');
    const first = new AbortController();
    const second = new AbortController();
    const a = waitFor(context(waits, first.signal), spec);
    const b = waitFor(context(waits, second.signal), spec);
    await vi.advanceTimersByTimeAsync(1_600);
    first.abort();
    expect(await a).toEqual({ kind: 'cancelled', record: 'running' });
    await vi.advanceTimersByTimeAsync(2_000);
    expect(polls.length).toBe(3);
    second.abort();
    expect((await b).kind).toBe('cancelled');
    await vi.advanceTimersByTimeAsync(60_000);
    expect(polls.length).toBe(3);
    expect(waits.size).toEqual({ waiters: 0, jobs: 0, queuedPolls: 0 });
  });

  it('at its wait limit a caller reads the job once more and gets it as a timeout', async () => {
    const waits = scheduler(OPTIONS);
    const { spec, polls } = job(() => false);
    const outcome = waitFor(context(waits), { ...spec, maxWaitMs: 2_500 });
    await vi.advanceTimersByTimeAsync(2_500);
    expect(await outcome).toEqual({ kind: 'timeout', record: 'running' });
    expect(polls).toEqual([500, 1_500, 2_500]);
  });

  it('at shutdown every caller ends at once with the latest record, and nothing more is polled', async () => {
    const stop = new AbortController();
    const waits = new WaitScheduler(OPTIONS, stop.signal);
    const { spec, polls } = job(() => false);
    const outcome = waitFor(context(waits), spec);
    await vi.advanceTimersByTimeAsync(600);
    stop.abort();
    expect(await outcome).toEqual({ kind: 'timeout', record: 'running' });
    await vi.advanceTimersByTimeAsync(60_000);
    expect(polls).toEqual([500]);
    expect(await waitFor(context(waits), spec)).toEqual({ kind: 'timeout', record: 'created' });
  });

  it('a poll that fails ends the wait as unreadable, with the last record read', async () => {
    const waits = scheduler(OPTIONS);
    let calls = 0;
    const outcome = waitFor(context(waits), {
      key: null,
      initial: 'created',
      poll: async () => {
        calls += 1;
        if (calls === 2) throw new Error('upstream 500');
        return 'running';
      },
      isDone: () => false,
      progress: () => idle,
      maxWaitMs: 60_000,
    });
    await vi.advanceTimersByTimeAsync(2_000);
    const result = await outcome;
    expect(result.kind).toBe('unreadable');
    expect(result.record).toBe('running');
  });

  it('between polls keeps only what `keep` leaves of a record; done and timed-out callers get the whole record read', async () => {
    const waits = scheduler(OPTIONS);
    let reads = 0;
    const spec: WaitSpec<string> = {
      key: 'search:1',
      initial: 'created',
      poll: async () => {
        reads += 1;
        return reads >= 3 ? 'finished+posts' : `running+posts${reads}`;
      },
      isDone: (r) => r.startsWith('finished'),
      keep: (r) => r.split('+')[0] as string,
      progress: () => idle,
      maxWaitMs: 600_000,
    };
    const leaving = new AbortController();
    const cancelled = waitFor(context(waits, leaving.signal), spec);
    const staying = waitFor(context(waits), spec);
    const timedOut = waitFor(context(waits), { ...spec, key: 'search:2', maxWaitMs: 500 });
    await vi.advanceTimersByTimeAsync(600);
    expect(await timedOut).toEqual({ kind: 'timeout', record: expect.stringMatching(/^running\+posts\d$/) });
    leaving.abort();
    expect(await cancelled).toEqual({ kind: 'cancelled', record: 'running' });
    await vi.advanceTimersByTimeAsync(5_000);
    expect(await staying).toEqual({ kind: 'done', record: 'finished+posts' });
  });

  it('reports the progress of the initial record and of every record read, the last one included', async () => {
    const waits = scheduler(OPTIONS);
    const seen: number[] = [];
    let pct = 0;
    const outcome = waitFor(
      context(waits, undefined, undefined, (u) => seen.push(u.percentage)),
      {
        key: null,
        initial: 0,
        poll: async () => {
          pct += 50;
          return pct;
        },
        isDone: (p) => p >= 100,
        progress: (p) => ({ percentage: p, phase: 'started', message: '' }),
        maxWaitMs: 60_000,
      },
    );
    await vi.advanceTimersByTimeAsync(5_000);
    expect(await outcome).toEqual({ kind: 'done', record: 100 });
    expect(seen).toEqual([0, 50, 100]);
  });

  it('tells the call when it starts waiting, and not when there is nothing to wait for', async () => {
    const waits = scheduler(OPTIONS);
    const started = vi.fn();
    const done = job(() => true);
    await waitFor({ ...context(waits), onWaitStart: started }, { ...done.spec, initial: 'finished' });
    expect(started).not.toHaveBeenCalled();
    const pending = waitFor({ ...context(waits), onWaitStart: started }, done.spec);
    expect(started).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(500);
    expect((await pending).kind).toBe('done');
  });
});

describe('the poll budget (UPSTREAM_POLLS_PER_SECOND)', () => {
  it('reads more jobs than it allows in turn, never above it; a caller at its limit is not held back', async () => {
    const waits = scheduler({ ...OPTIONS, pollsPerSecond: 10 });
    const jobs = Array.from({ length: 100 }, (_, i) => job(() => false, `keyword_search:${i}`));
    for (const [i, j] of jobs.entries())
      void waitFor(context(waits, undefined, { token: `t${i % 4}`, userId: 'u' }), j.spec);
    await vi.advanceTimersByTimeAsync(30_000);
    // Unbudgeted, 100 jobs polled at 0.5, 1.5, 3.5 and 7.5 s, then every 5 s, are 800 polls in 30 s.
    const total = jobs.reduce((n, j) => n + j.polls.length, 0);
    expect(total).toBeLessThanOrEqual(10 + 10 * 30);
    expect(total).toBeGreaterThanOrEqual(10 * 30 - 10);
    // Turns go round the credentials and the jobs of each: every job was read, none starved.
    for (const j of jobs) expect(j.polls.length).toBeGreaterThanOrEqual(2);
    const limited = job(() => false, 'keyword_search:limited');
    const outcome = waitFor(context(waits), { ...limited.spec, maxWaitMs: 2_000 });
    await vi.advanceTimersByTimeAsync(2_000);
    expect(await outcome).toEqual({ kind: 'timeout', record: 'running' });
    expect(limited.polls.at(-1)).toBe(2_000);
  });

  it('leaves a handful of jobs to their poll plan', async () => {
    const waits = scheduler({ ...OPTIONS, pollsPerSecond: 10 });
    const jobs = Array.from({ length: 5 }, (_, i) => job(() => false, `keyword_search:${i}`));
    for (const j of jobs) void waitFor(context(waits), j.spec);
    await vi.advanceTimersByTimeAsync(13_000);
    for (const j of jobs) expect(j.polls).toEqual([500, 1_500, 3_500, 7_500, 12_500]);
  });
});

describe('thousands of waiting calls', () => {
  it('cost a few kilobytes of heap each while they wait', async () => {
    vi.useRealTimers();
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const N = 5_000;
    const stop = new AbortController();
    const waits = new WaitScheduler(OPTIONS, stop.signal);
    gc();
    const heapBefore = process.memoryUsage().heapUsed;
    const pending = Array.from({ length: N }, (_, i) =>
      waitFor(context(waits), {
        key: `keyword_search:${i}`,
        initial: 'created',
        poll: async () => 'running',
        isDone: () => false,
        progress: () => idle,
        maxWaitMs: 600_000,
      }),
    );
    gc();
    const heapPerCall = (process.memoryUsage().heapUsed - heapBefore) / N;
    stop.abort();
    const outcomes = await Promise.all(pending);
    expect(outcomes.every((o) => o.kind === 'timeout')).toBe(true);
    // What a waiting call holds: the waiter, its job, promise and poll plan, and this test's own context
    // (with an AbortController) and spec objects; no timer or sleep loop of its own.
    expect(heapPerCall).toBeLessThan(6_000);
  });
});

describe('progressReporter', () => {
  it('sends only changes, with strictly increasing progress', () => {
    const sent: Array<[number, string]> = [];
    const report = progressReporter((p, m) => sent.push([p, m]));
    report({ percentage: 0, phase: 'pending', message: 'queued' });
    report({ percentage: 0, phase: 'pending', message: 'queued' });
    report({ percentage: 40, phase: 'started', message: 'collecting' });
    report({ percentage: 40, phase: 'started', message: 'analyzing' });
    report({ percentage: 30, phase: 'started', message: 'analyzing' });
    report({ percentage: 100, phase: 'finished', message: 'done' });
    expect(sent.map(([, m]) => m)).toEqual([
      'pending: queued',
      'started: collecting',
      'started: analyzing',
      'finished: done',
    ]);
    const values = sent.map(([p]) => p);
    for (let i = 1; i < values.length; i++) expect(values[i]).toBeGreaterThan(values[i - 1] ?? 0);
    expect(progressReporter(null)).toBeTypeOf('function');
  });
});
