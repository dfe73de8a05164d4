import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import type { ToolContext } from '../../src/mcp/tools/types.js';
import { DEFAULT_TOOL_OPTIONS } from '../../src/mcp/tools/types.js';
import { progressReporter, waitFor } from '../../src/mcp/wait.js';

function context(
  signal: AbortSignal,
  overrides: Partial<ToolContext['options']> = {},
  stopWaiting: AbortSignal = new AbortController().signal,
): ToolContext {
  return {
    upstream: null as never,
    creds: { token: 't', userId: 'u' },
    signal,
    stopWaiting,
    progress: () => {},
    options: { ...DEFAULT_TOOL_OPTIONS, ...overrides },
  };
}

describe('waitFor', () => {
  it('ends at once with the handle (timeout, not cancelled) when the server stops waiting', async () => {
    const stop = new AbortController();
    let polls = 0;
    const started = Date.now();
    const waiting = waitFor(context(new AbortController().signal, { pollInitialMs: 10_000 }, stop.signal), {
      initial: 'created',
      poll: async () => {
        polls += 1;
        return 'running';
      },
      isDone: () => false,
      progress: () => ({ percentage: 0, phase: 'p', message: 'm' }),
      maxWaitMs: 60_000,
    });
    setTimeout(() => stop.abort(), 50);
    const outcome = await waiting;
    expect(outcome).toEqual({ kind: 'timeout', record: 'created' });
    expect(polls).toBe(0);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('polls with doubling delays, capped', async () => {
    const times: number[] = [];
    const started = Date.now();
    const outcome = await waitFor(
      context(new AbortController().signal, { pollInitialMs: 20, pollMaxMs: 80 }),
      {
        initial: 0,
        poll: async () => {
          times.push(Date.now() - started);
          return times.length;
        },
        isDone: (n) => n >= 6,
        progress: () => ({ percentage: 0, phase: 'p', message: 'm' }),
        maxWaitMs: 10_000,
      },
    );
    expect(outcome).toEqual({ kind: 'done', record: 6 });
    const gaps = times.map((t, i) => t - (i === 0 ? 0 : (times[i - 1] ?? 0)));
    // 20, 40, 80, 80, 80, 80 (timers are never early; allow lateness on a busy machine).
    const expected = [20, 40, 80, 80, 80, 80];
    expect(gaps.map((g, i) => g >= (expected[i] ?? 0) - 2)).toEqual(expected.map(() => true));
    expect(Math.max(...gaps)).toBeLessThan(400);
  });

  it('thousands of waiting calls use no CPU between polls and little memory', async () => {
    const N = 2_000;
    const controller = new AbortController();
    let polls = 0;
    let done = false;
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    gc();
    const heapBefore = process.memoryUsage().heapUsed;
    const waits = Array.from({ length: N }, (_, i) =>
      // The first poll is due long after the measured window, so a machine stalled by other tests
      // for a second cannot make polls fall inside it (it did at 1 s under the full suite).
      waitFor(context(controller.signal, { pollInitialMs: 5_000, pollMaxMs: 5_000 }), {
        initial: { id: i, status: 'pending' },
        poll: async () => {
          polls++;
          return { id: i, status: done ? 'finished' : 'pending' };
        },
        isDone: (r) => r.status === 'finished',
        progress: () => ({ percentage: 0, phase: 'pending', message: '' }),
        maxWaitMs: 60_000,
      }),
    );
    await new Promise((r) => setTimeout(r, 50));
    gc();
    const heapPerCall = (process.memoryUsage().heapUsed - heapBefore) / N;
    const cpu = process.cpuUsage();
    await new Promise((r) => setTimeout(r, 200)); // all N are sleeping now
    const used = process.cpuUsage(cpu);
    expect(polls).toBe(0);
    expect((used.user + used.system) / 1000).toBeLessThan(60); // ms of CPU in 200 ms for 2000 waits
    // Measured about 3.5 KB after GC (the async frames, the sleep's timer and abort listener, the
    // test's context and spec objects); the bound leaves room for runtime differences.
    expect(heapPerCall).toBeLessThan(6_000);
    done = true;
    const outcomes = await Promise.all(waits);
    expect(polls).toBe(N);
    expect(outcomes.every((o) => o.kind === 'done')).toBe(true);
  });

  it('stops at once when cancelled, and at the wait limit', async () => {
    const controller = new AbortController();
    const pending = waitFor(context(controller.signal, { pollInitialMs: 5_000 }), {
      initial: 'x',
      poll: async () => 'x',
      isDone: () => false,
      progress: () => ({ percentage: 0, phase: 'p', message: '' }),
      maxWaitMs: 60_000,
    });
    setTimeout(() => controller.abort(), 20);
    const t0 = Date.now();
    expect((await pending).kind).toBe('cancelled');
    expect(Date.now() - t0).toBeLessThan(1_000);

    const limited = await waitFor(
      context(new AbortController().signal, { pollInitialMs: 10, pollMaxMs: 20 }),
      {
        initial: 'x',
        poll: async () => 'x',
        isDone: () => false,
        progress: () => ({ percentage: 0, phase: 'p', message: '' }),
        maxWaitMs: 100,
      },
    );
    expect(limited.kind).toBe('timeout');
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
