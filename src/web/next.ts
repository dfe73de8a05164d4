const NEXT_MAX_LENGTH = 2048;

/**
 * A same-origin relative path to return to after sign-in, or null: it must start with exactly one
 * '/' (so not '//host' or '/\host', which browsers treat as another origin) and contain no control
 * characters or backslashes.
 */
export function safeNext(value: string | undefined | null, publicUrl: string): string | null {
  if (!value || value.length > NEXT_MAX_LENGTH) return null;
  if (!value.startsWith('/') || value.startsWith('//')) return null;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
  if (/[\\\x00-\x1F\x7F]/.test(value)) return null;
  try {
    const base = new URL(publicUrl);
    const url = new URL(value, base);
    if (url.origin !== base.origin) return null;
    return `${url.pathname}${url.search}${url.hash}`;
  } catch {
    return null;
  }
}

/** `path?next=…` (plus any extra parameters), or the bare path when there is nothing to add. */
export function withNext(path: string, next: string | null | undefined, extra: Record<string, string> = {}) {
  const params = new URLSearchParams(extra);
  if (next) params.set('next', next);
  const query = params.toString();
  return query ? `${path}?${query}` : path;
}
