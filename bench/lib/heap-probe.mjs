/**
 * Preloaded into the gateway by the bench only (`node --expose-gc --import bench/lib/heap-probe.mjs`):
 * on SIGUSR2 it runs full garbage collections and writes the live heap to BENCH_HEAP_FILE. The heap
 * used as /metrics reports it includes whatever garbage the last collection left, which swings by
 * tens of megabytes under load; after a forced full collection it is what is still reachable, the
 * same method before and during a measurement. With BENCH_HEAP_SNAPSHOTS (a directory) each reading
 * also writes a heap snapshot there, to diff in Chrome DevTools or bench/heap-diff.ts. Plain
 * JavaScript: the gateway runs built code.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeHeapSnapshot } from 'node:v8';

const file = process.env.BENCH_HEAP_FILE;
const snapshots = process.env.BENCH_HEAP_SNAPSHOTS;
let reading = 0;
if (file && typeof globalThis.gc === 'function') {
  process.on('SIGUSR2', () => {
    // A second collection frees what the first one's weak callbacks and finalizers released.
    globalThis.gc();
    globalThis.gc();
    const m = process.memoryUsage();
    reading += 1;
    if (snapshots) writeHeapSnapshot(join(snapshots, `reading-${process.pid}-${reading}.heapsnapshot`));
    writeFileSync(
      file,
      JSON.stringify({
        reading,
        heapUsed: m.heapUsed,
        external: m.external,
        arrayBuffers: m.arrayBuffers,
        rss: m.rss,
      }),
    );
  });
}
