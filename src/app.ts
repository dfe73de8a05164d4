import { sql } from 'drizzle-orm';
import { type Context, Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { methodNotAllowed } from 'hono/method-not-allowed';
import { SharedRateLimiter } from './accounts/rate-limits.js';
import type { Config } from './config.js';
import { isDatabaseUnavailable, isUnstorableText, type OpenStore, scalar } from './db/store/index.js';
import { compressJson } from './http/compress.js';
import type { AppEnv } from './http/env.js';
import { jsonError } from './http/errors.js';
import { clientGone } from './http/node-response.js';
import { requestId } from './http/request-id.js';
import { requestLog } from './http/request-log.js';
import { limitBody, securityHeaders } from './http/security.js';
import type { Logger } from './logger.js';
import { BearerCheck } from './mcp/auth/authenticate.js';
import { UPSTREAM_HEADER_REJECTIONS, UpstreamHeaderCheck } from './mcp/auth/upstream-headers.js';
import { createMcpHttpHandler, type McpHandlerOptions } from './mcp/handler.js';
import { mcpRoutes } from './mcp/route.js';
import { requiredScopeForTool, TOOL_SUMMARIES } from './mcp/tools/index.js';
import { metrics } from './metrics/index.js';
import { metricsRoutes } from './metrics/route.js';
import { oauthRoutes } from './oauth/routes.js';
import type { SecretBox } from './security/secrets.js';
import { verifyUpstreamToken } from './upstream/verify-credential.js';
import { authorizeRoutes } from './web/authorize.js';
import { notFound } from './web/not-found/page.js';
import { webRoutes } from './web/routes.js';
import { sessionMiddleware } from './web/session.js';
import { teamRoutes } from './web/teams/routes.js';
import { databaseUnavailable } from './web/unavailable/page.js';

/** Everything the app needs from the process; built by main.ts (or a test). */
export interface AppDeps {
  config: Config;
  /** The shared store: the SQLite file, or PostgreSQL behind every instance. */
  db: OpenStore;
  logger: Logger;
  secrets: SecretBox;
  /** Where upstream calls go: the real service, or the in-process sandbox. */
  upstream: { searchUrl: string; agentUrl: string };
  /** Extra CA certificates trusted when fetching client metadata documents (tests). */
  cimdCa?: string;
  /** Overrides of the tool layer's waits and polling (tests use short ones). */
  mcpOptions?: McpHandlerOptions;
}

export interface App {
  app: Hono<AppEnv>;
  /**
   * Resolves once the bearer check's cache is in use (on PostgreSQL its invalidations are heard only
   * once listening); requests before are looked up every time. Tests wait for it.
   */
  ready: Promise<void>;
  /** Ends what outlives requests (waiting tool calls); the HTTP server is closed by its owner. */
  close(): Promise<void>;
}

/** The Retry-After of a request that needed the database while it was out of reach: a restart's length. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/**
 * 503 with Retry-After while the database cannot be reached (docs/operations.md, "When the database is
 * out of reach"): in JSON-RPC on /mcp, where an MCP client reads nothing else (-32000, the implementation's
 * server-error range, JSON-RPC 2.0 §5.1; the id is not known here), a page or JSON elsewhere.
 */
function unavailable(c: Context<AppEnv>) {
  const path = c.req.path;
  if (path !== '/mcp' && !path.startsWith('/mcp/'))
    return databaseUnavailable(c, DATABASE_RETRY_AFTER_SECONDS);
  const message = `The server cannot reach its database right now (it may be restarting). Retry in ${DATABASE_RETRY_AFTER_SECONDS} s.`;
  return c.json({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }, 503, {
    'Retry-After': String(DATABASE_RETRY_AFTER_SECONDS),
  });
}

/**
 * How long /readyz waits for the database before answering 503: below the deploy's check timeout
 * (fly.toml: 3 s), so the check gets an answer rather than a timeout, and a partition (a connection
 * attempt left unanswered until postgres.js gives up after 30 s) reads as not ready, not as slow.
 */
export const READY_TIMEOUT_MS = 2_000;

/** Whether the database answers a query within `ms`: true, 'timeout', or the error it gave. */
async function databaseAnswers(db: OpenStore, ms: number): Promise<true | 'timeout' | unknown> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), ms);
  });
  try {
    return await Promise.race([scalar(db, sql`SELECT 1`).then(() => true as const), deadline]);
  } catch (error) {
    return error;
  } finally {
    clearTimeout(timer);
  }
}

/** The composition root: the only place that knows every part. */
export function createApp(deps: AppDeps): App {
  const { config, db, logger } = deps;
  const app = new Hono<AppEnv>();

  app.use(requestId());
  app.use(requestLog(logger));
  app.route('/', metricsRoutes({ token: config.metricsToken, db })); // before the routes it measures
  app.use(securityHeaders());
  app.use(limitBody(config.bodyLimitBytes));
  app.use(compressJson());
  app.use(
    methodNotAllowed({
      app,
      onMethodNotAllowed: (c, methods) =>
        c.json(
          { error: 'method_not_allowed', message: `Use ${methods.join(' or ')} for ${c.req.path}.` },
          405,
          {
            Allow: methods.join(', '),
          },
        ),
    }),
  );

  const mcp = createMcpHttpHandler(
    { config, db, logger, upstream: deps.upstream, secrets: deps.secrets },
    {
      taskRetentionMs: config.mcp.taskRetentionMs,
      taskLeaseMs: config.mcp.taskLeaseMs,
      searchMaxWaitMs: config.mcp.searchMaxWaitMs,
      runMaxWaitMs: config.mcp.runMaxWaitMs,
      maxResultTokens: config.mcp.maxResultTokens,
      upstreamTimeoutMs: config.mcp.upstreamTimeoutMs,
      pollsPerSecond: config.mcp.pollsPerSecond,
      ...deps.mcpOptions,
    },
  );
  const bearers = new BearerCheck(db, deps.secrets, config);
  const upstreamHeaders = new UpstreamHeaderCheck({
    config,
    verify: (token) =>
      verifyUpstreamToken({
        searchUrl: deps.upstream.searchUrl,
        tokenHeader: config.upstream.tokenHeader,
        token,
        observe: metrics.observeUpstream,
      }),
    rejections: new SharedRateLimiter(db, config, 'upstream-header rejections', UPSTREAM_HEADER_REJECTIONS),
  });
  // Before the browser session: /mcp takes a bearer or the upstream headers, never a cookie, and a
  // handler that answers ends the chain.
  app.route(
    '/',
    mcpRoutes({ config, db, logger, bearers, upstreamHeaders, handler: mcp, requiredScopeForTool }),
  );

  app.use(sessionMiddleware({ db, config }));

  // Liveness and readiness (docs/operations.md, "Health checks"): /healthz says the process serves HTTP and never
  // looks at the database, so nothing that restarts on it restarts an instance for a database blip;
  // /readyz says the database answers, so a balancer sends nothing to an instance that cannot reach it
  // (fly.toml's service check).
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get('/readyz', async (c) => {
    const answer = await databaseAnswers(db, READY_TIMEOUT_MS);
    if (answer === true) return c.json({ status: 'ready' });
    if (answer === 'timeout') {
      c.get('log').error({ timeoutMs: READY_TIMEOUT_MS }, 'database not ready: no answer');
      return jsonError(
        c,
        503,
        'not_ready',
        `The database did not answer within ${READY_TIMEOUT_MS / 1000} s.`,
      );
    }
    c.get('log').error({ err: answer }, 'database not ready');
    return jsonError(c, 503, 'not_ready', 'The database does not answer.');
  });

  const oauthDeps = {
    config,
    db,
    logger,
    secrets: deps.secrets,
    cimd: { allowPrivateHosts: config.oauth.cimdAllowPrivateHosts, ca: deps.cimdCa },
  };
  app.route('/', oauthRoutes(oauthDeps));
  app.route('/', authorizeRoutes(oauthDeps));

  app.route('/', webRoutes({ ...deps, tools: TOOL_SUMMARIES }));
  app.route('/', teamRoutes(deps));

  app.notFound(notFound);
  app.onError((error, c) => {
    if (error instanceof HTTPException && error.status < 500) {
      return jsonError(c, error.status, 'bad_request', error.message || 'The request could not be read.');
    }
    if (isUnstorableText(error)) {
      return jsonError(
        c,
        400,
        'bad_request',
        'The request contains a NUL character, which no field accepts.',
      );
    }
    // Before the client-gone check: a lost database connection can look like a request cut short.
    if (isDatabaseUnavailable(error)) {
      (c.get('log') ?? logger).warn({ err: error }, 'database unavailable: answered 503');
      return unavailable(c);
    }
    if (clientGone(c)) {
      (c.get('log') ?? logger).info({ reason: error.message }, 'request aborted by the client');
      return jsonError(c, 400, 'bad_request', 'The request was not received in full.');
    }
    (c.get('log') ?? logger).error({ err: error }, 'unhandled error');
    // No stack trace or message leaves the process: they can hold internals.
    return c.json(
      {
        error: 'internal_error',
        message: 'Something went wrong on our side.',
        requestId: c.get('requestId'),
      },
      500,
    );
  });
  return {
    app,
    ready: bearers.ready,
    close: async () => {
      await mcp.close();
      await bearers.close();
    },
  };
}
