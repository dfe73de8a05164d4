import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { ConfigError, decodeKey, schema, toolLimitsFrom, variableProblems } from './config-variables.js';
import { privateFolder } from './db/data-folder.js';

export { ConfigError } from './config-variables.js';

/** The settings, parsed once at start-up from the environment (docs/configuration.md). */
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
    maxResultTokens: number;
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

/**
 * Parses the environment. Every problem is reported on its own line, naming the variable and the
 * accepted form; a secret's value is never echoed.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = schema.safeParse(env);
  const problems: string[] = [];
  if (!parsed.success) throw new ConfigError(variableProblems(parsed.error.issues, env));
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
  problems.push(...sandboxProblems(e, production));
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
      ...toolLimitsFrom(e),
      acceptUpstreamHeaders: upstreamHeadersAllowed(e.ALLOW_UPSTREAM_HEADERS, e.SIGNUP),
      taskRetentionMs: e.TASK_RETENTION_HOURS * 3_600_000,
      taskLeaseMs: e.TASK_LEASE_SECONDS * 1000,
    },
    auditRetentionDays: e.AUDIT_RETENTION_DAYS,
    housekeepingIntervalMs: e.HOUSEKEEPING_INTERVAL_SECONDS * 1000,
    metricsToken: e.METRICS_TOKEN ?? null,
  };
}

/**
 * The sandbox emulator hands out credentials to anyone and answers with made-up data: a production
 * deployment runs it only when told to (SANDBOX=on), never because upstream hosts were forgotten.
 */
function sandboxProblems(
  e: {
    SANDBOX?: 'on' | undefined;
    UPSTREAM_SEARCH_URL?: string | undefined;
    UPSTREAM_AGENT_URL?: string | undefined;
  },
  production: boolean,
): string[] {
  const upstream = Boolean(e.UPSTREAM_SEARCH_URL) && Boolean(e.UPSTREAM_AGENT_URL);
  if (e.SANDBOX === 'on' && upstream) {
    return [
      'SANDBOX: on runs the built-in sandbox, but UPSTREAM_SEARCH_URL and UPSTREAM_AGENT_URL name the real service: set one or the other',
    ];
  }
  if (production && !e.UPSTREAM_SEARCH_URL && !e.UPSTREAM_AGENT_URL && e.SANDBOX !== 'on') {
    return [
      'UPSTREAM_SEARCH_URL / UPSTREAM_AGENT_URL: required when NODE_ENV=production; to run the built-in sandbox emulator instead, set SANDBOX=on',
    ];
  }
  return [];
}

/**
 * Whether /mcp serves the two upstream headers: as set, or when unset only while sign-up is open. A
 * deployment that chose invite-only or closed sign-up would otherwise serve anyone holding any upstream
 * token, a widening nobody turned on.
 */
function upstreamHeadersAllowed(setting: 'true' | 'false' | undefined, signup: Config['signup']): boolean {
  return setting === undefined ? signup === 'open' : setting === 'true';
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
