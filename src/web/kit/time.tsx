/** `2026-11-22 02:30 UTC`: unambiguous whatever the reader's locale. */
export function formatTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/**
 * An instant as a `<time>` element (machine-readable datetime), or "never" for null. Served in UTC;
 * on pages that load /assets/local-time.js (Layout's `localTimes`) the reader's browser rewrites it
 * in their own time zone, with its offset (`2026-11-22 03:30 UTC+1`).
 */
export function Time({ ms }: { ms: number | null }) {
  if (ms === null) return <span class="muted">never</span>;
  return (
    <time class="local" datetime={new Date(ms).toISOString()}>
      {formatTime(ms)}
    </time>
  );
}
