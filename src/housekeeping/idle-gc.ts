import { Session } from 'node:inspector/promises';
import { getHeapStatistics } from 'node:v8';
import { nativeHeapTrim } from './native-heap.js';

/**
 * Gives memory back once a burst of load has passed. V8 grows its heap under load and, in Node 20,
 * never collects it again while the process idles: nothing allocates, so no collection is triggered,
 * and its memory reducer does not start without the idle notifications Node no longer sends. Measured
 * on the gateway after 1,000 waiting tool calls had finished (bench/memory-probe.ts): 130 MB of V8
 * heap in use and 260–290 MB reserved, unchanged 60 s later; one forced full collection brings the
 * heap to 34 MB in use. A process that keeps the memory of its busiest minute for good needs machines
 * sized for it, and an instance beside others on one host takes it from them.
 *
 * So every `intervalMs` the collector reads the process's CPU time and V8's reserved heap; when the
 * last interval was quiet (under `quietCpuShare` of a core) and the heap has grown by `growthBytes`
 * since the last collection, it runs a memory-reducing full collection. Under load it does nothing;
 * while idle it collects once per burst, not on every tick.
 */
export interface IdleGcOptions {
  intervalMs: number;
  /** CPU time ÷ wall time of the last interval below which the process counts as quiet. */
  quietCpuShare: number;
  /** Collect when V8's reserved heap is at least this much larger than after the last collection. */
  growthBytes: number;
}

export const DEFAULT_IDLE_GC: IdleGcOptions = {
  intervalMs: 10_000,
  quietCpuShare: 0.05,
  growthBytes: 32 * 1024 * 1024,
};

export interface Reading {
  /** CPU time (user + system) the process used in the interval, µs. */
  cpuUs: number;
  /** The interval's length, µs. */
  wallUs: number;
  /** V8's reserved heap now (total_heap_size), bytes. */
  heapBytes: number;
}

/** Whether to collect now, given the heap size after the last collection. */
export function shouldCollect(reading: Reading, heapAfterLast: number, options: IdleGcOptions): boolean {
  const quiet = reading.cpuUs < reading.wallUs * options.quietCpuShare;
  return quiet && reading.heapBytes - heapAfterLast >= options.growthBytes;
}

/**
 * A full collection that also gives memory back: the inspector's HeapProfiler.collectGarbage, through
 * an in-process session (no port is opened; node:inspector works without --inspect). It is V8's
 * memory-reducing collection, which a plain forced collection (`gc()` under --expose-gc) is not: that
 * one frees the old generation but keeps the young generation at its peak size (33.6 MB after a burst
 * in a test script, 1.0 MB after this one; the process's RSS 95 → 60 MB).
 */
export async function collectNow(): Promise<number> {
  const session = new Session();
  session.connect();
  try {
    await session.post('HeapProfiler.collectGarbage');
  } finally {
    session.disconnect();
  }
  // What the collection freed of native memory (Buffers' stores, sockets' state) is back in the C
  // heap's arenas, with everything else the burst freed there: given back to the kernel too.
  (await nativeHeapTrim())?.();
  return getHeapStatistics().total_heap_size;
}

/** Starts the collector; the returned function stops it. Its timer never keeps the process alive. */
export function startIdleGc(
  options: IdleGcOptions = DEFAULT_IDLE_GC,
  onCollect?: (before: number, after: number) => void,
): () => void {
  let heapAfterLast = getHeapStatistics().total_heap_size;
  let cpu = process.cpuUsage();
  let at = process.hrtime.bigint();
  let collecting = false;
  const timer = setInterval(async () => {
    if (collecting) return;
    const nowCpu = process.cpuUsage();
    const now = process.hrtime.bigint();
    const reading: Reading = {
      cpuUs: nowCpu.user - cpu.user + (nowCpu.system - cpu.system),
      wallUs: Number(now - at) / 1000,
      heapBytes: getHeapStatistics().total_heap_size,
    };
    if (shouldCollect(reading, heapAfterLast, options)) {
      collecting = true;
      heapAfterLast = await collectNow().finally(() => {
        collecting = false;
      });
      onCollect?.(reading.heapBytes, heapAfterLast);
    } else {
      // A heap that shrank by itself is the new floor.
      heapAfterLast = Math.min(heapAfterLast, reading.heapBytes);
    }
    // The collection's own CPU is not counted against the next interval.
    cpu = process.cpuUsage();
    at = process.hrtime.bigint();
  }, options.intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
