/**
 * A circuit per upstream host and credential: after `failures` requests in a row failed (network
 * error, full time-out, 5xx), the circuit opens and requests of that host with that credential are
 * answered at once, without asking, for `openMs`; then one request goes through as a probe (half-open):
 * its success closes the circuit, its failure opens it again for twice as long (at most `maxOpenMs`).
 *
 * Per credential rather than per host: what one account sees (its rate limits, its own trouble
 * upstream, or a fault injected for it) says little about the others', and one tenant's failing
 * calls must not refuse every other tenant's. An outage of the whole host still stops each credential
 * after a few failures, so the upstream is asked at most once per `openMs` per credential meanwhile.
 */
export interface CircuitOptions {
  /** Failures in a row that open the circuit. Default 5. */
  failures: number;
  /** How long it first stays open. Default 10 s. */
  openMs: number;
  /** The longest it stays open after failed probes. Default 60 s. */
  maxOpenMs: number;
}

export const CIRCUIT_DEFAULTS: CircuitOptions = { failures: 5, openMs: 10_000, maxOpenMs: 60_000 };

/** Circuits kept at most (a failing credential each; a success forgets its circuit). */
const KEPT = 10_000;

interface Circuit {
  failures: number;
  /** Open until then (epoch ms); 0 while closed. */
  openUntil: number;
  openMs: number;
  /** The half-open probe is in flight: other requests wait for its outcome. */
  probing: boolean;
}

/** A request may go (`probe` when it is the half-open probe), or not for `retryInMs`. */
export type Admission = { go: true; probe: boolean } | { go: false; retryInMs: number; failures: number };

export class CircuitBreaker {
  private readonly circuits = new Map<string, Circuit>();

  constructor(private readonly o: CircuitOptions = CIRCUIT_DEFAULTS) {}

  admit(key: string, now: number): Admission {
    const c = this.circuits.get(key);
    if (!c || c.failures < this.o.failures) return { go: true, probe: false };
    if (c.openUntil > now) return { go: false, retryInMs: c.openUntil - now, failures: c.failures };
    // Half-open: one probe at a time; the others are told to come back shortly.
    if (c.probing) return { go: false, retryInMs: Math.min(c.openMs, 1_000), failures: c.failures };
    c.probing = true;
    return { go: true, probe: true };
  }

  succeeded(key: string): void {
    this.circuits.delete(key);
  }

  failed(key: string, now: number): void {
    let c = this.circuits.get(key);
    if (!c) {
      if (this.circuits.size >= KEPT) this.circuits.delete(this.circuits.keys().next().value as string);
      c = { failures: 0, openUntil: 0, openMs: this.o.openMs, probing: false };
      this.circuits.set(key, c);
    }
    c.failures++;
    if (c.probing) {
      c.probing = false;
      c.openMs = Math.min(this.o.maxOpenMs, c.openMs * 2);
      c.openUntil = now + c.openMs;
    } else if (c.failures === this.o.failures) {
      c.openUntil = now + c.openMs;
    }
  }

  /** A probe that ended without an answer either way (the caller stopped waiting): another may go. */
  released(key: string): void {
    const c = this.circuits.get(key);
    if (c) c.probing = false;
  }
}
