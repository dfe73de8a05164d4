const NEXT_MAX_LENGTH = 2048;

// biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
const RAW_FORBIDDEN = /[\\\x00-\x1F\x7F]/;
/** A slash, backslash or control character written as a percent escape: a proxy may decode it. */
const ENCODED_FORBIDDEN = /%(?:2f|5c|[01][0-9a-f]|7f)/i;

/**
 * The one rule for a redirect target on this origin: exactly one leading '/' (browsers take '//host'
 * and '/\host' for another origin), no backslash or control character, none of them percent-encoded
 * in the path (a decoding proxy would turn them back).
 */
function isLocalPath(value: string): boolean {
  if (!value.startsWith('/') || value.startsWith('//') || RAW_FORBIDDEN.test(value)) return false;
  const path = value.split(/[?#]/, 1)[0] ?? '';
  return !ENCODED_FORBIDDEN.test(path);
}

/**
 * A same-origin relative path to return to after sign-in, or null. The rule is checked on the value
 * and again on what the URL parser makes of it: dot segments (`/.//x`, `/%2e%2e//x`) can normalise a
 * harmless-looking path into `//x`, a URL of another host (WHATWG URL, path state).
 */
export function safeNext(value: string | undefined | null, publicUrl: string): string | null {
  if (!value || value.length > NEXT_MAX_LENGTH || !isLocalPath(value)) return null;
  try {
    const base = new URL(publicUrl);
    const url = new URL(value, base);
    if (url.origin !== base.origin) return null;
    const normalised = `${url.pathname}${url.search}${url.hash}`;
    return isLocalPath(normalised) ? normalised : null;
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
