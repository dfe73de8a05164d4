import pino, { type Logger } from 'pino';
import type { Config } from './config.js';
import { isoTimeField } from './log-time.js';
import { otel } from './telemetry/index.js';

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
  options: { secretKeys?: Iterable<string>; traced?: boolean } = {},
): Logger {
  const keys = new Set(REDACTED_KEYS);
  for (const key of options.secretKeys ?? []) keys.add(key.toLowerCase());
  return pino(
    {
      level,
      base: undefined,
      timestamp: () => isoTimeField(),
      // A traced process's lines name the span they were written in (trace_id, span_id); an untraced
      // one has no mixin at all, so its lines cost nothing more.
      ...(options.traced ? { mixin: traceFields } : {}),
      formatters: {
        level: (label) => ({ level: label }),
        log: (object) => censor(object, 0, keys) as Record<string, unknown>,
      },
      hooks: {
        // An error is written at once, with what was gathered before it (batchedDestination): the
        // lines an operator needs first are never the ones still waiting for a batch.
        logMethod(args, method, level) {
          method.apply(this, args);
          if (level >= ERROR_LEVEL) this.flush();
        },
      },
    },
    destination,
  );
}

function traceFields(): Record<string, string> {
  return otel.on ? otel.t.logFields() : {};
}

/** pino's number for `error` (`fatal` is above it). */
const ERROR_LEVEL = 50;

/** Log lines gathered before one write: most of a line's cost is the write's system call. */
export const LOG_BUFFER_BYTES = 4_096;
/** A partial batch is written after at most this long, so a quiet server's lines still show promptly. */
export const LOG_FLUSH_MS = 250;

/**
 * Where the process logger writes (stdout by default): lines are gathered and written synchronously in
 * batches of LOG_BUFFER_BYTES, and whatever is gathered at least every LOG_FLUSH_MS and when the
 * process exits (a crash included: an uncaught exception still exits through 'exit'). A line a write
 * each would make every request pay for a system call (bench/profile-proxy.ts shows its share of a
 * proxied call). What a batch holds is lost only if
 * the process is killed outright (SIGKILL, the kernel's OOM killer): at most LOG_FLUSH_MS of lines.
 */
export function batchedDestination(
  dest: number | string = 1,
): pino.DestinationStream & { flushSync(): void } {
  const stream = pino.destination({
    dest,
    sync: true,
    minLength: LOG_BUFFER_BYTES,
    periodicFlush: LOG_FLUSH_MS,
  });
  process.once('exit', () => {
    try {
      stream.flushSync();
    } catch {
      // already closed: nothing left to write
    }
  });
  return stream;
}

/**
 * The process logger: the upstream header names are whatever UPSTREAM_TOKEN_HEADER and
 * UPSTREAM_USER_HEADER say, so those are censored as well as the defaults.
 */
export function createConfiguredLogger(
  config: Pick<Config, 'logLevel'> & { upstream: Pick<Config['upstream'], 'tokenHeader' | 'userHeader'> },
  destination?: pino.DestinationStream,
  options: { traced?: boolean } = {},
): Logger {
  return createLogger(config.logLevel, destination, {
    secretKeys: [config.upstream.tokenHeader, config.upstream.userHeader],
    ...options,
  });
}
