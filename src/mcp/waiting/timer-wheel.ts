/**
 * `at` moved up to the next multiple of `step` (epoch ms): due times that need no precision finer than
 * `step` (keep-alive comments, backoff polls) meet in the same instants, so the process wakes once for
 * all that fell due together instead of once each. Waking is what costs: an upstream poll made alone
 * on its own wake-up costs several times the CPU of one made in a batch that woke together.
 */
export function alignUp(at: number, step: number): number {
  return step > 1 ? Math.ceil(at / step) * step : at;
}

/** Something due at a time: a poll, a wait's deadline, an SSE keep-alive. */
export interface WheelEntry {
  fire(): void;
}

/**
 * One Node timer for any number of due times (a calendar queue, the idea of a timer wheel): entries
 * sit in buckets `resolutionMs` wide, and the single timer is armed for the earliest non-empty bucket.
 * Ten thousand waiting calls are then ten thousand small records in maps, not ten thousand timers with
 * their closures, and adding or cancelling one is O(log buckets). Entries fire at most `resolutionMs`
 * late (never early), in no particular order within a bucket.
 */
export class TimerWheel {
  private readonly buckets = new Map<number, Set<WheelEntry>>();
  private readonly slotOf = new Map<WheelEntry, number>();
  /** Min-heap of the slots that had a bucket when pushed (a slot emptied by cancels is skipped). */
  private readonly heap: number[] = [];
  private timer: NodeJS.Timeout | null = null;
  private armedFor = Number.POSITIVE_INFINITY;
  /** While a tick fires: entries scheduled for now or earlier go to the next slot, never this one. */
  private firing = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly resolutionMs = 20,
    private readonly now: () => number = Date.now,
  ) {}

  /** Schedules (or moves) `entry` to fire at `at` (epoch ms). */
  schedule(entry: WheelEntry, at: number): void {
    this.cancel(entry);
    const slot = Math.max(Math.ceil(at / this.resolutionMs), this.firing + 1);
    let bucket = this.buckets.get(slot);
    if (!bucket) {
      bucket = new Set();
      this.buckets.set(slot, bucket);
      this.push(slot);
    }
    bucket.add(entry);
    this.slotOf.set(entry, slot);
    // During a tick the timer is re-armed once, at its end.
    if (this.firing === Number.NEGATIVE_INFINITY && slot < this.armedFor) this.arm();
  }

  cancel(entry: WheelEntry): void {
    const slot = this.slotOf.get(entry);
    if (slot === undefined) return;
    this.slotOf.delete(entry);
    const bucket = this.buckets.get(slot);
    bucket?.delete(entry);
    if (bucket?.size === 0) this.buckets.delete(slot);
  }

  /** Entries scheduled and not yet fired. */
  get size(): number {
    return this.slotOf.size;
  }

  private arm(): void {
    while (this.heap.length > 0 && !this.buckets.has(this.heap[0] as number)) this.pop();
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.armedFor = Number.POSITIVE_INFINITY;
    const first = this.heap[0];
    if (first === undefined) return;
    this.armedFor = first;
    this.timer = setTimeout(() => this.tick(), Math.max(0, first * this.resolutionMs - this.now()));
    // Waits keep their HTTP exchanges open, which keeps the process alive; this timer need not.
    this.timer.unref();
  }

  private tick(): void {
    this.timer = null;
    this.armedFor = Number.POSITIVE_INFINITY;
    const current = Math.floor(this.now() / this.resolutionMs);
    this.firing = current;
    while (this.heap.length > 0 && (this.heap[0] as number) <= current) {
      const slot = this.pop();
      const bucket = this.buckets.get(slot);
      if (!bucket) continue;
      this.buckets.delete(slot);
      for (const entry of bucket) {
        this.slotOf.delete(entry);
        try {
          entry.fire();
        } catch {
          // An entry's own failure is its business; the others still fire.
        }
      }
    }
    this.firing = Number.NEGATIVE_INFINITY;
    this.arm();
  }

  private push(slot: number): void {
    const heap = this.heap;
    heap.push(slot);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if ((heap[parent] as number) <= slot) break;
      heap[i] = heap[parent] as number;
      i = parent;
    }
    heap[i] = slot;
  }

  private pop(): number {
    const heap = this.heap;
    const top = heap[0] as number;
    const last = heap.pop() as number;
    if (heap.length > 0) {
      let i = 0;
      for (;;) {
        const left = 2 * i + 1;
        if (left >= heap.length) break;
        const right = left + 1;
        const child = right < heap.length && (heap[right] as number) < (heap[left] as number) ? right : left;
        if ((heap[child] as number) >= last) break;
        heap[i] = heap[child] as number;
        i = child;
      }
      heap[i] = last;
    }
    return top;
  }
}
