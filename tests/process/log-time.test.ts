import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isoTimeField } from '../../src/log-time.js';

const pinoIsoTime = (ms: number) => `,"time":"${new Date(ms).toISOString()}"`;

describe('the log line time field (written once a second, not once a line)', () => {
  it('is what pino isoTime writes, for any instant in any order', () => {
    const instant = fc.integer({ min: 0, max: 8_640_000_000_000 });
    fc.assert(
      fc.property(fc.array(instant, { minLength: 1, maxLength: 20 }), (instants) => {
        for (const ms of instants) expect(isoTimeField(ms)).toBe(pinoIsoTime(ms));
      }),
    );
  });

  it('holds across a second, a day and a year as a log writes them, one millisecond apart', () => {
    const start = Date.UTC(2026, 11, 31, 23, 59, 59, 990);
    for (let ms = start; ms < start + 30; ms++) expect(isoTimeField(ms)).toBe(pinoIsoTime(ms));
  });

  it('goes back in time when the clock does', () => {
    const now = Date.UTC(2026, 11, 2, 12, 0, 0, 500);
    expect(isoTimeField(now)).toBe(pinoIsoTime(now));
    expect(isoTimeField(now - 1_000)).toBe(pinoIsoTime(now - 1_000));
    expect(isoTimeField(now - 1)).toBe(pinoIsoTime(now - 1));
  });
});
