/**
 * Node's socket errors for a database that is not there: refused, reset, unreachable, or its name not
 * resolved.
 */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/** postgres.js's own codes for a connection it lost or could not open. */
const DRIVER_CODES = new Set([
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  'CONNECT_TIMEOUT',
]);

/**
 * SQLSTATEs of a server going away or not yet back (PostgreSQL, Appendix A): 57P01 admin_shutdown (a
 * restart ends every session), 57P02 crash_shutdown, 57P03 cannot_connect_now (starting up), 53300
 * too_many_connections; class 08 is every connection exception.
 */
function unavailableState(code: string): boolean {
  return (
    code === '57P01' || code === '57P02' || code === '57P03' || code === '53300' || code.startsWith('08')
  );
}

/**
 * Whether an error means the database cannot be reached right now (a restart, a failover, a network
 * cut), as opposed to a fault of the request or of the code: such a request may succeed as is once the
 * database is back, so it is answered 503 with Retry-After rather than 500 (app.ts). Follows `cause`
 * (drizzle wraps the driver's error) and an AggregateError's `errors` (a connect tried on each address).
 */
export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (!error || typeof error !== 'object' || depth > 5) return false;
  const code = (error as { code?: unknown }).code;
  if (
    typeof code === 'string' &&
    (SOCKET_CODES.has(code) || DRIVER_CODES.has(code) || unavailableState(code))
  )
    return true;
  const inner = (error as { errors?: unknown }).errors;
  if (Array.isArray(inner) && inner.some((e) => isDatabaseUnavailable(e, depth + 1))) return true;
  return isDatabaseUnavailable((error as { cause?: unknown }).cause, depth + 1);
}
