/** `2026-11-22 02:30 UTC`: unambiguous whatever the reader's locale. */
export function formatTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** An instant as a `<time>` element (machine-readable datetime), or "never" for null. */
export function Time({ ms }: { ms: number | null }) {
  if (ms === null) return <span class="muted">never</span>;
  return <time datetime={new Date(ms).toISOString()}>{formatTime(ms)}</time>;
}
