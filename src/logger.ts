import pino, { type Logger } from 'pino';
import type { Config } from './config.js';

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
export function censor(value: unknown, depth = 0, keys: ReadonlySet<string> = REDACTED_KEYS): unknown {
  // Errors are left to pino's err serializer (a copy would lose their non-enumerable message and stack).
  if (depth >= CENSOR_DEPTH || value === null || typeof value !== 'object' || value instanceof Error)
    return value;
  let copy: Record<string, unknown> | unknown[] | undefined;
  for (const key of Object.keys(value)) {
    const original = (value as Record<string, unknown>)[key];
    const name = key.toLowerCase();
    const secret = keys.has(name) || (depth === 0 && REDACTED_TOP_LEVEL_KEYS.has(name));
    const next = secret ? CENSORED : censor(original, depth + 1, keys);
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
export function createLogger(
  level: string,
  destination?: pino.DestinationStream,
  options: { secretKeys?: Iterable<string> } = {},
): Logger {
  const keys = new Set(REDACTED_KEYS);
  for (const key of options.secretKeys ?? []) keys.add(key.toLowerCase());
  return pino(
    {
      level,
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: {
        level: (label) => ({ level: label }),
        log: (object) => censor(object, 0, keys) as Record<string, unknown>,
      },
    },
    destination,
  );
}

/**
 * The process logger: the upstream header names are whatever UPSTREAM_TOKEN_HEADER and
 * UPSTREAM_USER_HEADER say, so those are censored as well as the defaults.
 */
export function createConfiguredLogger(
  config: Pick<Config, 'logLevel'> & { upstream: Pick<Config['upstream'], 'tokenHeader' | 'userHeader'> },
  destination?: pino.DestinationStream,
): Logger {
  return createLogger(config.logLevel, destination, {
    secretKeys: [config.upstream.tokenHeader, config.upstream.userHeader],
  });
}
