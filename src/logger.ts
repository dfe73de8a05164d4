import pino, { type Logger } from 'pino';

export type { Logger };

/**
 * JSON logs to stdout. Redaction is a second line of defence: code must not log secrets in the first
 * place, but any header, token, password or cookie that reaches a log object is censored.
 */
export const REDACTED_PATHS = [
  'password',
  'token',
  'accessToken',
  'refreshToken',
  'access_token',
  'refresh_token',
  'client_secret',
  'code',
  'code_verifier',
  'authorization',
  'cookie',
  'apiToken',
  '*.password',
  '*.token',
  '*.access_token',
  '*.refresh_token',
  '*.client_secret',
  '*.code_verifier',
  '*.authorization',
  '*.cookie',
  '*.apiToken',
  'headers.authorization',
  'headers.cookie',
  'headers["x-service-token"]',
  'req.headers.authorization',
  'req.headers.cookie',
];

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      formatters: { level: (label) => ({ level: label }) },
    },
    destination,
  );
}
