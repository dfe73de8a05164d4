/**
 * Redirect URI policy as pure functions (OAuth 2.1 draft §2.3 and §7.5.1, RFC 8252 §7, RFC 6749 §3.1.2).
 */

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);
const FORBIDDEN_SCHEMES = new Set([
  'javascript:',
  'data:',
  'vbscript:',
  'file:',
  'blob:',
  'about:',
  'ftp:',
  'ws:',
  'wss:',
]);
/** RFC 3986 §3.1 scheme syntax (URL parsing lower-cases it). */
const SCHEME = /^[a-z][a-z0-9+.-]*:$/;
/**
 * Schemes of known MCP clients that predate the reverse-domain rule below and are registered by those
 * apps themselves: Cursor (`cursor://anysphere.cursor-mcp/oauth/callback`), VS Code and VS Code
 * Insiders, Windsurf and Zed (their URL handlers complete MCP sign-ins).
 */
export const KNOWN_CLIENT_SCHEMES: ReadonlySet<string> = new Set([
  'cursor:',
  'vscode:',
  'vscode-insiders:',
  'windsurf:',
  'zed:',
]);
/**
 * Prefixes of operating-system handlers that act on the URI as soon as a browser opens it (Windows'
 * `ms-msdt:`, `ms-settings:`, `search-ms:`; macOS' `x-apple.systempreferences:`), refused even in a
 * dotted form.
 */
const PLATFORM_HANDLER_PREFIXES = ['ms-', 'search-ms', 'x-apple'];

export type RedirectKind = 'https' | 'loopback' | 'private-use';

export type RedirectCheck = { ok: true; kind: RedirectKind } | { ok: false; reason: string };

/** Whether a URI may be registered as a redirect URI, and of which kind. */
export function checkRedirectUri(value: string): RedirectCheck {
  if (value.length > 2000) return { ok: false, reason: 'is longer than 2000 characters' };
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { ok: false, reason: 'is not an absolute URI' };
  }
  // RFC 6749 §3.1.2: the endpoint URI MUST NOT include a fragment component.
  if (value.includes('#')) return { ok: false, reason: 'must not contain a fragment' };
  if (url.username || url.password) return { ok: false, reason: 'must not contain user information' };
  if (FORBIDDEN_SCHEMES.has(url.protocol))
    return { ok: false, reason: `uses the forbidden scheme ${url.protocol}` };
  if (url.protocol === 'https:') return { ok: true, kind: 'https' };
  if (url.protocol === 'http:') {
    // OAuth 2.1 §7.5.1 / RFC 8252 §8.3: plain http only for the loopback interface.
    return LOOPBACK_HOSTS.has(url.hostname)
      ? { ok: true, kind: 'loopback' }
      : { ok: false, reason: 'uses http on a host other than localhost, 127.0.0.1 or [::1]' };
  }
  if (!SCHEME.test(url.protocol)) return { ok: false, reason: 'has an unusable scheme' };
  if (KNOWN_CLIENT_SCHEMES.has(url.protocol)) return { ok: true, kind: 'private-use' };
  if (PLATFORM_HANDLER_PREFIXES.some((prefix) => url.protocol.startsWith(prefix))) {
    return { ok: false, reason: `uses ${url.protocol}, which opens an operating-system handler` };
  }
  // RFC 8252 §7.1: a private-use scheme is a domain name the app controls, in reverse order
  // (`com.example.app:`). A bare word (`mailto:`, `chrome:`, `view-source:`) names some other handler.
  if (!url.protocol.includes('.')) {
    return {
      ok: false,
      reason: `uses the scheme ${url.protocol}, which is neither https, loopback http, nor a reverse-domain private-use scheme like com.example.app: (RFC 8252 §7.1)`,
    };
  }
  return { ok: true, kind: 'private-use' };
}

export function isLoopbackRedirect(value: string): boolean {
  const check = checkRedirectUri(value);
  return check.ok && check.kind === 'loopback';
}

/**
 * Whether `requested` matches one of the registered URIs: exact string comparison (OAuth 2.1 §4.1.1),
 * except that the port of a loopback http URI may differ (RFC 8252 §7.3: native apps get an ephemeral
 * port from the OS at the time of the request).
 */
export function matchRedirectUri(registered: readonly string[], requested: string): boolean {
  if (registered.includes(requested)) return true;
  if (!isLoopbackRedirect(requested)) return false;
  const want = new URL(requested);
  return registered.some((uri) => {
    if (!isLoopbackRedirect(uri)) return false;
    const have = new URL(uri);
    return (
      have.hostname === want.hostname &&
      have.pathname === want.pathname &&
      have.search === want.search &&
      have.protocol === want.protocol
    );
  });
}

/** OpenID Dynamic Client Registration §2 `application_type`, inferred when a client sends none. */
export function inferApplicationType(redirectUris: readonly string[]): 'web' | 'native' {
  const allNative = redirectUris.every((uri) => {
    const check = checkRedirectUri(uri);
    return check.ok && check.kind !== 'https';
  });
  return redirectUris.length > 0 && allNative ? 'native' : 'web';
}

/** Host shown to the person on the consent page ("will send you back to …"). */
export function redirectDisplayHost(uri: string): string {
  const url = new URL(uri);
  return url.host || `${url.protocol}//`;
}
