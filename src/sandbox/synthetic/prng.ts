import { createHash } from 'node:crypto';

/** A small deterministic PRNG (mulberry32): the same seed key always yields the same sequence. */
export class Rng {
  private state: number;

  constructor(key: string) {
    this.state = createHash('sha256').update(key).digest().readUInt32LE(0);
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Integer in [min, max] inclusive. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  pick<T>(items: readonly T[]): T {
    const item = items[Math.floor(this.next() * items.length)];
    if (item === undefined) throw new Error('pick from an empty pool');
    return item;
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  /** A skewed count: many small values, a few large ones (like social engagement). */
  skewed(max: number): number {
    return Math.floor(max * this.next() ** 3);
  }

  digits(n: number): string {
    let out = String(this.int(1, 9));
    for (let i = 1; i < n; i++) out += String(this.int(0, 9));
    return out;
  }
}

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}
