import { z } from 'zod';
import {
  ConfigError,
  SECRET_VARIABLES,
  schema,
  toolLimitsFrom,
  variableProblems,
} from '../config-variables.js';
import {
  isUpstreamTokenShaped,
  isUpstreamUserIdShaped,
  UPSTREAM_TOKEN_MAX_LENGTH,
  UPSTREAM_USER_ID_MAX_LENGTH,
} from '../upstream/credential-shape.js';

/** What `social-intel-mcp stdio` reads from its environment: the server's own variables where they apply. */
export interface StdioConfig {
  upstream: {
    /** Both null: the built-in sandbox, started in the process. */
    searchUrl: string | null;
    agentUrl: string | null;
    tokenHeader: string;
    userHeader: string;
  };
  /** UPSTREAM_TOKEN and UPSTREAM_USER_ID; a null token means the sandbox's own ready credential. */
  credentials: { token: string | null; userId: string };
  sandboxSpeed: 'instant' | 'demo' | 'realistic';
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  mcp: {
    searchMaxWaitMs: number;
    runMaxWaitMs: number;
    maxResultTokens: number;
    upstreamTimeoutMs: number;
    pollsPerSecond: number;
  };
}

/** The user id the sandbox's ready credential acts as when UPSTREAM_USER_ID is not set. */
export const SANDBOX_USER_ID = 'sandbox-user';

const stdioSchema = schema
  .pick({
    UPSTREAM_SEARCH_URL: true,
    UPSTREAM_AGENT_URL: true,
    UPSTREAM_TOKEN_HEADER: true,
    UPSTREAM_USER_HEADER: true,
    SANDBOX_SPEED: true,
    LOG_LEVEL: true,
    SEARCH_MAX_WAIT_SECONDS: true,
    RUN_MAX_WAIT_SECONDS: true,
    MAX_RESULT_TOKENS: true,
    UPSTREAM_TIMEOUT_MS: true,
    UPSTREAM_POLLS_PER_SECOND: true,
  })
  .extend({
    // Never echoed: the token is a secret (STDIO_SECRETS).
    UPSTREAM_TOKEN: z
      .string()
      .refine(
        isUpstreamTokenShaped,
        `must be your API token: at most ${UPSTREAM_TOKEN_MAX_LENGTH} letters, digits and punctuation, without spaces`,
      )
      .optional(),
    UPSTREAM_USER_ID: z
      .string()
      .refine(
        isUpstreamUserIdShaped,
        `must be your user id: at most ${UPSTREAM_USER_ID_MAX_LENGTH} letters, digits, punctuation and inner spaces`,
      )
      .optional(),
  });

const STDIO_SECRETS: ReadonlySet<string> = new Set([...SECRET_VARIABLES, 'UPSTREAM_TOKEN']);

/**
 * Parses the stdio server's environment. Unlike the web server's configuration it needs no secret key
 * and writes nothing (no data folder, no generated key): the stdio server keeps nothing. With both
 * upstream URLs, UPSTREAM_TOKEN and UPSTREAM_USER_ID are required; without them (the sandbox) the
 * sandbox's ready credential is used unless a token is given.
 */
export function loadStdioConfig(env: NodeJS.ProcessEnv): StdioConfig {
  // An empty variable is an unset one here: client configurations often carry "" for an unused value.
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== ''));
  const parsed = stdioSchema.safeParse(present);
  if (!parsed.success) throw new ConfigError(variableProblems(parsed.error.issues, present, STDIO_SECRETS));
  const e = parsed.data;
  const problems: string[] = [];
  const real = Boolean(e.UPSTREAM_SEARCH_URL) || Boolean(e.UPSTREAM_AGENT_URL);
  if (real && (!e.UPSTREAM_SEARCH_URL || !e.UPSTREAM_AGENT_URL)) {
    problems.push(
      'UPSTREAM_SEARCH_URL / UPSTREAM_AGENT_URL: set both (the real service) or neither (the built-in sandbox)',
    );
  }
  if (real && !e.UPSTREAM_TOKEN) problems.push('UPSTREAM_TOKEN: missing; set it to your API token');
  if ((real || e.UPSTREAM_TOKEN) && !e.UPSTREAM_USER_ID)
    problems.push('UPSTREAM_USER_ID: missing; set it to your user id');
  if (problems.length) throw new ConfigError(problems);
  return {
    upstream: {
      searchUrl: e.UPSTREAM_SEARCH_URL ?? null,
      agentUrl: e.UPSTREAM_AGENT_URL ?? null,
      tokenHeader: e.UPSTREAM_TOKEN_HEADER,
      userHeader: e.UPSTREAM_USER_HEADER,
    },
    credentials: { token: e.UPSTREAM_TOKEN ?? null, userId: e.UPSTREAM_USER_ID ?? SANDBOX_USER_ID },
    sandboxSpeed: e.SANDBOX_SPEED,
    logLevel: e.LOG_LEVEL,
    mcp: toolLimitsFrom(e),
  };
}
