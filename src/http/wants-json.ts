import type { Context } from 'hono';
import { accepts } from 'hono/accepts';

/**
 * Paths machines call: an error under them is answered in JSON whatever the Accept header says (an
 * MCP or OAuth client reading an HTML page would only report a parse error).
 */
const API_PREFIXES = [
  '/mcp',
  '/.well-known/',
  '/token',
  '/register',
  '/revoke',
  '/metrics',
  '/healthz',
  '/readyz',
];

function isApiPath(path: string): boolean {
  return API_PREFIXES.some(
    (prefix) => path === prefix || path.startsWith(prefix.endsWith('/') ? prefix : `${prefix}/`),
  );
}

/**
 * Whether an error is answered in JSON rather than as a page: API paths, and clients that prefer JSON
 * over HTML (RFC 9110 §12.5.1 Accept; no Accept or `*\/*` gets the page).
 */
export function wantsJson(c: Context): boolean {
  return (
    isApiPath(c.req.path) ||
    accepts(c, { header: 'Accept', supports: ['text/html', 'application/json'], default: 'text/html' }) ===
      'application/json'
  );
}
