import pino, { type Logger } from 'pino';

export type { Logger };

/**
 * Keys whose values never reach a log line, compared case-insensitively at any depth up to
 * CENSOR_DEPTH (a header map, a request body, a nested details object).
 */
export const REDACTED_KEYS: ReadonlySet<string> = new Set([
  'password',
  'token',
  'accesstoken',
  'refreshtoken',
  'access_token',
  'refresh_token',
  'client_secret',
  'code_verifier',
  'authorization',
  'cookie',
  'set-cookie',
  'apitoken',
  'x-service-token',
]);

/**
 * `code` is an OAuth authorization code only at the top of a log object; nested, it is an error code
 * (`ECONNRESET`, `SQLITE_BUSY`) that operators need.
 */
const REDACTED_TOP_LEVEL_KEYS: ReadonlySet<string> = new Set(['code']);

const CENSOR_DEPTH = 4;
const CENSORED = '[redacted]';

/**
 * Returns `value` with every REDACTED_KEYS entry replaced, copying only the objects on the way to a
 * censored key (the logged object itself is never changed). A flat access-log line costs one pass over
 * its keys: pino's path-based `redact` cost about ten times more per line, and a line is written for
 * every request.
 */
export function censor(value: unknown, depth = 0): unknown {
  // Errors are left to pino's err serializer (a copy would lose their non-enumerable message and stack).
  if (depth >= CENSOR_DEPTH || value === null || typeof value !== 'object' || value instanceof Error)
    return value;
  let copy: Record<string, unknown> | unknown[] | undefined;
  for (const key of Object.keys(value)) {
    const original = (value as Record<string, unknown>)[key];
    const name = key.toLowerCase();
    const secret = REDACTED_KEYS.has(name) || (depth === 0 && REDACTED_TOP_LEVEL_KEYS.has(name));
    const next = secret ? CENSORED : censor(original, depth + 1);
    if (next === original) continue;
    copy ??= Array.isArray(value) ? [...value] : { ...value };
    (copy as Record<string, unknown>)[key] = next;
  }
  return copy ?? value;
}

/**
 * JSON logs to stdout. Censoring is a second line of defence: code must not log secrets in the first
 * place, but any header, token, password or cookie that reaches a log object is replaced.
 */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: {
        level: (label) => ({ level: label }),
        log: (object) => censor(object) as Record<string, unknown>,
      },
    },
    destination,
  );
}
