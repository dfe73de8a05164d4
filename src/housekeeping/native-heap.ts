/**
 * Gives the C heap's free memory back to the kernel. glibc keeps what a burst of load freed inside its
 * arenas: after the bench's load (tools/list, proxied calls, refreshes, two rounds of 1,000 waiting
 * calls) the main arena held 43 MB of which 24 MB were in use (`malloc_stats()` through gdb), and the
 * arena of the thread pool 5–11 MB with almost nothing in use; freed chunks sit between live ones, so
 * the trimming free() does at the top of a heap never reaches them. `malloc_trim(0)` releases the free
 * pages of every arena (MADV_DONTNEED): the gateway's idle RSS went from 140 to 120 MB. Node has no
 * binding for it, so it is called through koffi (an FFI with prebuilt binaries); MALLOC_ARENA_MAX,
 * the mmap and trim thresholds, jemalloc and mimalloc were measured and did not help
 * (bench/memory-probe.ts: idle RSS after load 128–140 MB with each).
 *
 * Only where there is a glibc to ask (Linux); elsewhere `nativeHeapTrim()` resolves to null.
 */
export type NativeHeapTrim = () => boolean;

let loaded: Promise<NativeHeapTrim | null> | undefined;

/** malloc_trim(0) as a function (true when memory was released), or null without glibc. */
export function nativeHeapTrim(): Promise<NativeHeapTrim | null> {
  loaded ??= load();
  return loaded;
}

async function load(): Promise<NativeHeapTrim | null> {
  if (process.platform !== 'linux') return null;
  try {
    const { default: koffi } = await import('koffi');
    const trim = koffi.load('libc.so.6').func('int malloc_trim(size_t pad)') as (pad: number) => number;
    return () => trim(0) === 1;
  } catch {
    // musl (no malloc_trim) or no libc.so.6: nothing to give back this way.
    return null;
  }
}

/**
 * Under steady load the process is never quiet, so the idle collector never trims: what bursts within
 * the load free stays in glibc's arenas. Trimming every `intervalMs` whatever the load gives it back; a
 * trim walks the arenas' free chunks (≈ a millisecond for tens of MB) and the pages it released are
 * faulted back in only as they are used again. (The soak's RSS growth at 120 operations a second,
 * which this was first written for, turned out to be SQLite's page cache: ../db/client.ts.) The timer
 * never keeps the process alive. Returns the function that stops it.
 */
export function startNativeHeapTrimmer(intervalMs: number): () => void {
  let trim: NativeHeapTrim | null = null;
  void nativeHeapTrim().then((found) => {
    trim = found;
  });
  const timer = setInterval(() => trim?.(), intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}

/** How often the C heap is trimmed under load (startNativeHeapTrimmer). */
export const NATIVE_HEAP_TRIM_MS = 30_000;
