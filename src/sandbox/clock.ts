/**
 * The sandbox's notion of "now". Everything time-dependent reads this clock, so tests can freeze it
 * and step it forward instead of sleeping.
 */
export interface Clock {
  now(): number;
  /** Stop time; now() keeps returning the same instant until advanced or resumed. */
  freeze(): void;
  /** Let time flow again from the current instant. */
  resume(): void;
  advance(ms: number): void;
  set(ms: number): void;
  isFrozen(): boolean;
}

export class SandboxClock implements Clock {
  private offset = 0;
  private frozenAt: number | null = null;

  constructor(private readonly source: () => number = Date.now) {}

  now(): number {
    return this.frozenAt ?? this.source() + this.offset;
  }

  freeze(): void {
    if (this.frozenAt === null) this.frozenAt = this.now();
  }

  resume(): void {
    if (this.frozenAt === null) return;
    this.offset = this.frozenAt - this.source();
    this.frozenAt = null;
  }

  advance(ms: number): void {
    if (this.frozenAt !== null) this.frozenAt += ms;
    else this.offset += ms;
  }

  set(ms: number): void {
    if (this.frozenAt !== null) this.frozenAt = ms;
    else this.offset = ms - this.source();
  }

  isFrozen(): boolean {
    return this.frozenAt !== null;
  }
}

export function iso(ms: number): string {
  return new Date(ms).toISOString();
}
