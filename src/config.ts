import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { z } from 'zod';
import { privateFolder } from './db/data-folder.js';
import { DEFAULT_POOL_SIZE } from './db/pool-size.js';
import { DEFAULT_TOOL_OPTIONS } from './mcp/tools/options.js';
import { UPSTREAM_DEFAULTS } from './upstream/defaults.js';

/** Settings of DESIGN.md §6, parsed once at start-up. */
export interface Config {
  nodeEnv: 'development' | 'production' | 'test';
  port: number;
  host: string;
  publicUrl: string;
  /** Canonical MCP resource URI (RFC 8707): PUBLIC_URL + "/mcp". */
  resourceUrl: string;
  /** The SQLite file, used when databaseUrl is null. */
  databasePath: string;
  /** DATABASE_URL: a PostgreSQL database shared by every instance; null for the SQLite file. */
  databaseUrl: string | null;
  /** DATABASE_POOL_SIZE: connections each instance keeps to PostgreSQL. */
  databasePoolSize: number;
  /** DATABASE_PREPARE=false behind a pooler that cannot keep prepared statements (PgBouncer < 1.21). */
  databasePrepare: boolean;
  /** Current key first; older keys after it, so envelopes written under them still open. */
  secretKeys: SecretKey[];
  upstream: {
    searchUrl: string | null;
    agentUrl: string | null;
    tokenHeader: string;
    userHeader: string;
  };
  /** True when no upstream URL is configured: `npm start` then serves an in-process sandbox. */
  sandboxMode: boolean;
  sandboxSpeed: 'instant' | 'demo' | 'realistic';
  signup: 'open' | 'invite' | 'closed';
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  bodyLimitBytes: number;
  shutdownGraceMs: number;
  trustProxy: boolean;
  oauth: {
    accessTokenTtlSeconds: number;
    /** Development only: Client ID Metadata Documents may live on loopback or private hosts. */
    cimdAllowPrivateHosts: boolean;
  };
  /** The tool layer's waits and limits (src/mcp/tools/types.ts ToolOptions). */
  mcp: {
    searchMaxWaitMs: number;
    runMaxWaitMs: number;
    maxResultBytes: number;
    upstreamTimeoutMs: number;
    /** Most upstream polls a second for waiting calls, the whole process (src/mcp/waiting/poll-budget.ts). */
    pollsPerSecond: number;
    /** ALLOW_UPSTREAM_HEADERS: /mcp serves a client that sends the two upstream headers instead of a bearer. */
    acceptUpstreamHeaders: boolean;
    /** TASK_RETENTION_HOURS: how long an ended task of the tasks extension stays readable. */
    taskRetentionMs: number;
    /** TASK_LEASE_SECONDS: how long an instance's claim on a task's background work holds unrenewed. */
    taskLeaseMs: number;
  };
  /** Origins besides PUBLIC_URL's that may call /mcp from a browser (DNS-rebinding defence). */
  allowedOrigins: string[];
  /** Audit rows older than this many days are purged by housekeeping. */
  auditRetentionDays: number;
  /** HOUSEKEEPING_INTERVAL_SECONDS: how often the purge runs (the first pass too, after start). */
  housekeepingIntervalMs: number;
  /** METRICS_TOKEN: the bearer secret /metrics requires; null serves no /metrics at all (404). */
  metricsToken: string | null;
}

export interface SecretKey {
  /** Derived from the key itself (see keyId), so envelopes name their key whatever the variable. */
  id: string;
  key: Buffer;
}

/** First 8 bytes of SHA-256(key), hex: identifies a key without revealing it. */
export function keyId(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 16);
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

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

function decodeKey(v: string): Buffer | null {
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
  ALLOW_UPSTREAM_HEADERS: z.enum(['true', 'false']).default('true'),
  ACCESS_TOKEN_TTL_SECONDS: z
    .string()
    .default('3600')
    .refine(
      (v) => /^\d+$/.test(v) && Number(v) >= 60 && Number(v) <= 86_400,
      'must be whole seconds from 60 to 86400',
    )
    .transform(Number),
  CIMD_ALLOW_PRIVATE_HOSTS: z.enum(['true', 'false']).default('false'),
  // The tool layer's knobs default to what it uses when built without a configuration (tools/options.ts).
  SEARCH_MAX_WAIT_SECONDS: wholeNumber(seconds(DEFAULT_TOOL_OPTIONS.searchMaxWaitMs), 1, 3600, 'seconds'),
  RUN_MAX_WAIT_SECONDS: wholeNumber(seconds(DEFAULT_TOOL_OPTIONS.runMaxWaitMs), 1, 3600, 'seconds'),
  MAX_RESULT_BYTES: wholeNumber(String(DEFAULT_TOOL_OPTIONS.maxResultBytes), 4096, 10 * 1024 * 1024, 'bytes'),
  UPSTREAM_TIMEOUT_MS: wholeNumber(String(UPSTREAM_DEFAULTS.timeoutMs), 100, 300_000, 'milliseconds'),
  UPSTREAM_POLLS_PER_SECOND: wholeNumber(
    String(DEFAULT_TOOL_OPTIONS.pollsPerSecond),
    1,
    100_000,
    'polls a second',
  ),
  TASK_RETENTION_HOURS: wholeNumber('24', 1, 24 * 30, 'hours'),
  // 30: another instance resumes a stopped one's tasks within a lease; renewed every 10 s.
  TASK_LEASE_SECONDS: wholeNumber('30', 1, 3600, 'seconds'),
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
export function describeIssues(
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

/**
 * Parses the environment. Every problem is reported on its own line, naming the variable and the
 * accepted form; a secret's value is never echoed.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = schema.safeParse(env);
  const problems: string[] = [];
  if (!parsed.success) throw new ConfigError(describeIssues(parsed.error.issues, env));
  const e = parsed.data;
  const production = e.NODE_ENV === 'production';
  const publicUrl = e.PUBLIC_URL ?? `http://localhost:${e.PORT}`;
  if (production && !e.SECRET_KEY) {
    problems.push(
      'SECRET_KEY: required when NODE_ENV=production (32 random bytes, e.g. `openssl rand -hex 32`)',
    );
  } else if (e.DATABASE_URL && !e.SECRET_KEY) {
    // Every instance on the shared database must open the same credentials and verify the same
    // cookies: a key generated beside one machine's files would differ on the next.
    problems.push(
      'SECRET_KEY: required when DATABASE_URL is set, the same on every instance (32 random bytes, e.g. `openssl rand -hex 32`)',
    );
  }
  if (production && !publicUrl.startsWith('https://')) {
    problems.push(
      `PUBLIC_URL: must be an https URL when NODE_ENV=production (got ${JSON.stringify(publicUrl)})`,
    );
  }
  if (production && e.CIMD_ALLOW_PRIVATE_HOSTS === 'true') {
    problems.push(
      'CIMD_ALLOW_PRIVATE_HOSTS: must not be true when NODE_ENV=production (it lets client_id URLs reach the private network)',
    );
  }
  if (Boolean(e.UPSTREAM_SEARCH_URL) !== Boolean(e.UPSTREAM_AGENT_URL)) {
    problems.push(
      'UPSTREAM_SEARCH_URL / UPSTREAM_AGENT_URL: set both (the real service) or neither (the built-in sandbox)',
    );
  }
  if (problems.length) throw new ConfigError(problems);

  const databasePath = resolve(e.DATABASE_PATH);
  const currentKey = e.SECRET_KEY ?? developmentKey(databasePath);
  const secretKeys: SecretKey[] = [currentKey, ...(e.SECRET_KEY_PREVIOUS ? [e.SECRET_KEY_PREVIOUS] : [])].map(
    (key) => ({ id: keyId(key), key }),
  );
  return {
    nodeEnv: e.NODE_ENV,
    port: e.PORT,
    host: e.HOST,
    publicUrl,
    resourceUrl: `${publicUrl}/mcp`,
    databasePath,
    databaseUrl: e.DATABASE_URL ?? null,
    databasePoolSize: e.DATABASE_POOL_SIZE,
    databasePrepare: e.DATABASE_PREPARE === 'true',
    secretKeys,
    upstream: {
      searchUrl: e.UPSTREAM_SEARCH_URL ?? null,
      agentUrl: e.UPSTREAM_AGENT_URL ?? null,
      tokenHeader: e.UPSTREAM_TOKEN_HEADER,
      userHeader: e.UPSTREAM_USER_HEADER,
    },
    sandboxMode: !e.UPSTREAM_SEARCH_URL,
    sandboxSpeed: e.SANDBOX_SPEED,
    signup: e.SIGNUP,
    logLevel: e.LOG_LEVEL,
    bodyLimitBytes: e.BODY_LIMIT_BYTES,
    shutdownGraceMs: e.SHUTDOWN_GRACE_MS,
    trustProxy: e.TRUST_PROXY === 'true',
    oauth: {
      accessTokenTtlSeconds: e.ACCESS_TOKEN_TTL_SECONDS,
      cimdAllowPrivateHosts: e.CIMD_ALLOW_PRIVATE_HOSTS === 'true',
    },
    allowedOrigins: e.ALLOWED_ORIGINS,
    mcp: {
      searchMaxWaitMs: e.SEARCH_MAX_WAIT_SECONDS * 1000,
      runMaxWaitMs: e.RUN_MAX_WAIT_SECONDS * 1000,
      maxResultBytes: e.MAX_RESULT_BYTES,
      upstreamTimeoutMs: e.UPSTREAM_TIMEOUT_MS,
      pollsPerSecond: e.UPSTREAM_POLLS_PER_SECOND,
      acceptUpstreamHeaders: e.ALLOW_UPSTREAM_HEADERS === 'true',
      taskRetentionMs: e.TASK_RETENTION_HOURS * 3_600_000,
      taskLeaseMs: e.TASK_LEASE_SECONDS * 1000,
    },
    auditRetentionDays: e.AUDIT_RETENTION_DAYS,
    housekeepingIntervalMs: e.HOUSEKEEPING_INTERVAL_SECONDS * 1000,
    metricsToken: e.METRICS_TOKEN ?? null,
  };
}

/**
 * Development only: a key generated once into the data folder (mode 0600) and reused, so a plain
 * `npm start` keeps its encrypted credentials readable across restarts.
 */
function developmentKey(databasePath: string): Buffer {
  const file = join(dirname(databasePath), 'secret.key');
  if (existsSync(file)) {
    const key = decodeKey(readFileSync(file, 'utf8').trim());
    if (!key)
      throw new ConfigError([
        `SECRET_KEY: the generated key file ${file} is damaged; remove it or set SECRET_KEY`,
      ]);
    return key;
  }
  privateFolder(dirname(file));
  const key = randomBytes(32);
  // 'wx' fails if another process created the file meanwhile; then read theirs.
  try {
    writeFileSync(file, `${key.toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
    chmodSync(file, 0o600);
    return key;
  } catch {
    return developmentKey(databasePath);
  }
}
