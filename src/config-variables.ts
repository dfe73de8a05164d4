import { z } from 'zod';
import { TASK_DEFAULTS, TOOL_DEFAULTS } from './config-defaults.js';
import { DEFAULT_POOL_SIZE } from './db/pool-size.js';
import { UPSTREAM_DEFAULTS } from './upstream/defaults.js';

/*
 * The environment variables: what each accepts and its default, checked one variable at a time
 * (docs/configuration.md lists them). The rules across variables, and the typed Config, are config.ts's.
 */

/** Why the process cannot start: one problem a line, each naming its variable. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Variables whose value no message repeats. */
export const SECRET_VARIABLES: ReadonlySet<string> = new Set([
  'SECRET_KEY',
  'SECRET_KEY_PREVIOUS',
  'METRICS_TOKEN',
  'DATABASE_URL',
]);

const port = (fallback: number) =>
  z
    .string()
    .default(String(fallback))
    .refine((v) => /^\d+$/.test(v) && Number(v) <= 65_535, 'must be a whole number from 0 to 65535')
    .transform(Number);

/** An origin-shaped URL, normalised (lower-case host, default port dropped) so the OAuth issuer is exact. */
const originUrl = z
  .string()
  .refine((v) => URL.canParse(v) && /^https?:$/.test(new URL(v).protocol), 'must be an http(s) URL')
  .refine((v) => {
    const url = new URL(v);
    return (url.pathname === '/' || url.pathname === '') && !url.search && !url.hash && !url.username;
  }, 'must be an origin without path, query or fragment, like https://mcp.example.com')
  .transform((v) => new URL(v).origin);

const httpUrl = z
  .string()
  .refine((v) => URL.canParse(v) && /^https?:$/.test(new URL(v).protocol), 'must be an http(s) URL')
  .transform((v) => v.replace(/\/+$/, ''));

/** A 32-byte key written as 64 hex characters or 43/44 base64(url) characters. */
const secretKey = z.string().transform((v, ctx) => {
  const key = decodeKey(v.trim());
  if (!key) {
    ctx.addIssue({
      code: 'custom',
      message: 'must be 32 random bytes as 64 hex or 44 base64 characters (e.g. `openssl rand -hex 32`)',
    });
    return z.NEVER;
  }
  return key;
});

/** A key as SECRET_KEY or the development key file writes it; null when it is not 32 bytes. */
export function decodeKey(v: string): Buffer | null {
  if (/^[0-9a-fA-F]{64}$/.test(v)) return Buffer.from(v, 'hex');
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(v)) {
    const key = Buffer.from(v, 'base64url');
    return key.length === 32 ? key : null;
  }
  return null;
}

const seconds = (ms: number) => String(ms / 1000);

const wholeNumber = (fallback: string, min: number, max: number, unit: string) =>
  z
    .string()
    .default(fallback)
    .refine(
      (v) => /^\d+$/.test(v) && Number(v) >= min && Number(v) <= max,
      `must be whole ${unit} from ${min} to ${max}`,
    )
    .transform(Number);

export const schema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  PORT: port(8787),
  HOST: z.string().min(1).default('0.0.0.0'),
  PUBLIC_URL: originUrl.optional(),
  DATABASE_PATH: z.string().min(1).default('./data/social-intel-mcp.db'),
  // Never echoed (SECRET_VARIABLES): a connection URL usually carries a password.
  DATABASE_URL: z
    .string()
    .refine(
      (v) => /^postgres(ql)?:\/\/[^/\s]+\/[^\s]+$/i.test(v) && URL.canParse(v),
      'must be a PostgreSQL URL like postgres://user:password@host:5432/database',
    )
    .optional(),
  DATABASE_POOL_SIZE: wholeNumber(String(DEFAULT_POOL_SIZE), 1, 100, 'connections'),
  DATABASE_PREPARE: z.enum(['true', 'false']).default('true'),
  SECRET_KEY: secretKey.optional(),
  SECRET_KEY_PREVIOUS: secretKey.optional(),
  UPSTREAM_SEARCH_URL: httpUrl.optional(),
  UPSTREAM_AGENT_URL: httpUrl.optional(),
  UPSTREAM_TOKEN_HEADER: z
    .string()
    .regex(/^[A-Za-z0-9-]+$/, 'must be an HTTP header name (letters, digits, dashes)')
    .default(UPSTREAM_DEFAULTS.tokenHeader),
  UPSTREAM_USER_HEADER: z
    .string()
    .regex(/^[A-Za-z0-9-]+$/, 'must be an HTTP header name (letters, digits, dashes)')
    .default(UPSTREAM_DEFAULTS.userHeader),
  SIGNUP: z.enum(['open', 'invite', 'closed']).default('open'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  // The built-in emulator is the default without upstream hosts, except in production (config.ts).
  SANDBOX: z.enum(['on']).optional(),
  SANDBOX_SPEED: z.enum(['instant', 'demo', 'realistic']).default('demo'),
  BODY_LIMIT_BYTES: z
    .string()
    .default(String(1024 * 1024))
    .refine((v) => /^\d+$/.test(v) && Number(v) >= 1024, 'must be a whole number of bytes, at least 1024')
    .transform(Number),
  SHUTDOWN_GRACE_MS: z
    .string()
    .default('10000')
    .refine((v) => /^\d+$/.test(v), 'must be a whole number of milliseconds')
    .transform(Number),
  TRUST_PROXY: z.enum(['true', 'false']).default('false'),
  // No default here: unset, it follows SIGNUP (config.ts:upstreamHeadersAllowed).
  ALLOW_UPSTREAM_HEADERS: z.enum(['true', 'false']).optional(),
  ACCESS_TOKEN_TTL_SECONDS: z
    .string()
    .default('3600')
    .refine(
      (v) => /^\d+$/.test(v) && Number(v) >= 60 && Number(v) <= 86_400,
      'must be whole seconds from 60 to 86400',
    )
    .transform(Number),
  CIMD_ALLOW_PRIVATE_HOSTS: z.enum(['true', 'false']).default('false'),
  // The tool layer's knobs default to what it uses when built without a configuration (config-defaults.ts).
  SEARCH_MAX_WAIT_SECONDS: wholeNumber(seconds(TOOL_DEFAULTS.searchMaxWaitMs), 1, 3600, 'seconds'),
  RUN_MAX_WAIT_SECONDS: wholeNumber(seconds(TOOL_DEFAULTS.runMaxWaitMs), 1, 3600, 'seconds'),
  MAX_RESULT_TOKENS: wholeNumber(String(TOOL_DEFAULTS.maxResultTokens), 2_000, 1_000_000, 'tokens'),
  UPSTREAM_TIMEOUT_MS: wholeNumber(String(UPSTREAM_DEFAULTS.timeoutMs), 100, 300_000, 'milliseconds'),
  UPSTREAM_POLLS_PER_SECOND: wholeNumber(String(TOOL_DEFAULTS.pollsPerSecond), 1, 100_000, 'polls a second'),
  TASK_RETENTION_HOURS: wholeNumber(String(TASK_DEFAULTS.retentionMs / 3_600_000), 1, 24 * 30, 'hours'),
  TASK_LEASE_SECONDS: wholeNumber(seconds(TASK_DEFAULTS.leaseMs), 1, 3600, 'seconds'),
  METRICS_TOKEN: z
    .string()
    .regex(
      /^[\x21-\x7e]{32,256}$/,
      'must be 32 to 256 visible ASCII characters (e.g. `openssl rand -hex 32`)',
    )
    .optional(),
  AUDIT_RETENTION_DAYS: z
    .string()
    .default('365')
    .refine(
      (v) => /^\d+$/.test(v) && Number(v) >= 1 && Number(v) <= 36_500,
      'must be a whole number of days from 1 to 36500',
    )
    .transform(Number),
  HOUSEKEEPING_INTERVAL_SECONDS: wholeNumber('900', 10, 86_400, 'seconds'),
  ALLOWED_ORIGINS: z
    .string()
    .default('')
    .transform((v) =>
      v
        .split(',')
        .map((o) => o.trim())
        .filter(Boolean),
    )
    .refine(
      (list) => list.every((o) => URL.canParse(o) && new URL(o).origin === o),
      'must be a comma-separated list of origins like https://app.example.com',
    ),
});

/** One line per problem, naming the variable and what it accepts; a secret's value is never echoed. */
export function variableProblems(
  issues: readonly z.core.$ZodIssue[],
  env: NodeJS.ProcessEnv,
  secrets: ReadonlySet<string> = SECRET_VARIABLES,
): string[] {
  return issues.map((issue) => {
    const name = String(issue.path[0]);
    const shown = secrets.has(name) ? '' : ` (got ${JSON.stringify(env[name])})`;
    return `${name}: ${issue.message}${shown}`;
  });
}

/** The variables every server's tool layer reads (the hosted one and the local stdio one). */
export type ToolLimitVariables = Pick<
  z.infer<typeof schema>,
  | 'SEARCH_MAX_WAIT_SECONDS'
  | 'RUN_MAX_WAIT_SECONDS'
  | 'MAX_RESULT_TOKENS'
  | 'UPSTREAM_TIMEOUT_MS'
  | 'UPSTREAM_POLLS_PER_SECOND'
>;

/** The tool layer's limits from their variables, read alike by every server. */
export function toolLimitsFrom(e: ToolLimitVariables) {
  return {
    searchMaxWaitMs: e.SEARCH_MAX_WAIT_SECONDS * 1000,
    runMaxWaitMs: e.RUN_MAX_WAIT_SECONDS * 1000,
    maxResultTokens: e.MAX_RESULT_TOKENS,
    upstreamTimeoutMs: e.UPSTREAM_TIMEOUT_MS,
    pollsPerSecond: e.UPSTREAM_POLLS_PER_SECOND,
  };
}
