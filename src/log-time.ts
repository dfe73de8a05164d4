/**
 * The log line's `"time"` field, as pino's isoTime writes it (`,"time":"2026-12-02T12:30:45.123Z"`),
 * with the date and the second written once per second rather than by a Date and toISOString for every
 * line: a busy server writes a line per request (the request log), and that was a large part of its
 * cost (docs/performance.md, "Round 3: where the proxied call's tail went"). Only the milliseconds
 * change within a second.
 */
let secondStart = Number.NaN;
let secondPrefix = '';

export function isoTimeField(now = Date.now()): string {
  let ms = now - secondStart;
  if (!(ms >= 0 && ms < 1_000)) {
    ms = ((now % 1_000) + 1_000) % 1_000;
    secondStart = now - ms;
    // "…T12:30:45." of "…T12:30:45.000Z": everything but the milliseconds and the Z.
    secondPrefix = `,"time":"${new Date(secondStart).toISOString().slice(0, -4)}`;
  }
  return `${secondPrefix}${ms < 10 ? '00' : ms < 100 ? '0' : ''}${ms}Z"`;
}
