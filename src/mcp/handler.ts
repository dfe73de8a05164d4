import type { ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AuthInfo } from '@modelcontextprotocol/server';
import { batchedToolCallAuditor } from '../audit/batched.js';
import { repeatedReadsAuditor } from '../audit/repeated-reads.js';
import { type ToolCallAudit, toolCallAuditor } from '../audit/tool-calls.js';
import type { Config } from '../config.js';
import { TASK_DEFAULTS } from '../config-defaults.js';
import type { OpenStore } from '../db/store/index.js';
import type { Logger } from '../logger.js';
import { metrics } from '../metrics/index.js';
import { seriesCache } from '../metrics/registry.js';
import { derivedKey } from '../security/derived-keys.js';
import type { SecretBox } from '../security/secrets.js';
import { teamToolPolicy } from '../teams/tool-policy.js';
import { otel } from '../telemetry/index.js';
import { DEFAULT_VIEWS_DIR, ViewCatalog } from './apps/catalog.js';
import { ViewNegotiation } from './apps/negotiate.js';
import type { Caller } from './auth/caller.js';
import { assembleCatalog, type CallTuning, toolOptionsFrom } from './call-assembly.js';
import { CallDirectory } from './cancellation/call-directory.js';
import { InflightCalls } from './cancellation/inflight.js';
import { compileAll } from './catalog/compiled-catalog.js';
import { PerRequestServers, SERVER_INFO, serverOptions } from './per-request-server.js';
import { PromptCatalog } from './prompts/serve.js';
import { ResourceReader } from './resources/read.js';
import { RecentSubmits } from './reuse/recent-submits.js';
import { SdkBypass } from './sdk-bypass/bypass.js';
import type { BypassMode } from './sdk-bypass/paths.js';
import { ToolsListCache } from './sdk-bypass/tools-list-cache.js';
import { requestServer } from './serve-request.js';
import { Tasks } from './tasks/tasks.js';
import { CREDIT_SPENDING_TOOLS, toolByName } from './tools/index.js';
import type { ToolOptions } from './tools/types.js';
import { TimerWheel } from './waiting/timer-wheel.js';

export { SERVER_INFO } from './per-request-server.js';

export interface McpHandlerDeps {
  config: Config;
  db: OpenStore;
  logger: Logger;
  upstream: { searchUrl: string; agentUrl: string };
  /** Opens the workspaces' credentials, for tasks settled after a restart or on another instance. */
  secrets: SecretBox;
}

export interface McpHandlerOptions extends CallTuning {
  /** Where the built MCP Apps views are (default dist/views/). */
  viewsDir?: string;
  /** How much of /mcp is answered outside the SDK (./sdk-bypass/paths.ts; default `full`). */
  sdkBypass?: BypassMode;
  /** SSE keep-alive comment interval (default 15 s, the SDK's own default). */
  sseKeepAliveMs?: number;
  /** How long an ended task is kept (TASK_RETENTION_HOURS; default in config-defaults.ts). */
  taskRetentionMs?: number;
  /** How long a claim on a task's background work holds unrenewed (TASK_LEASE_SECONDS; config-defaults.ts). */
  taskLeaseMs?: number;
  /** How long a task's work is waited for at most (default 6 h), then it completes with where it stands. */
  taskMaxWorkMs?: number;
  /** The window a task's repeated reads are counted in before their audit row (default a minute). */
  taskReadWindowMs?: number;
}

export interface McpHttpHandler {
  /** `outgoing`: Node's response behind `request` (@hono/node-server), for a waiting call to write to. */
  fetch(
    request: Request,
    opts: { authInfo: AuthInfo; parsedBody?: unknown; outgoing?: ServerResponse | undefined },
  ): Promise<Response>;
  close(): Promise<void>;
}

/** Longest shutdown waits for running tool calls to answer (they stop waiting at once). */
const SHUTDOWN_DRAIN_MS = 5_000;
/** SSE keep-alive comment interval: the SDK's streams and the bypass's own use the same. */
const SSE_KEEP_ALIVE_MS = 15_000;

/**
 * The /mcp handler: the SDK v2 stateless handler for both protocol eras, with the bypass in front of it
 * for the tool calls it answers itself. Everything expensive is built here, once: the upstream client,
 * each tool's JSON Schemas and handler, and (lazily) one compiled tool list per distinct reach (scopes
 * narrowed by the chosen toolsets).
 */
export function createMcpHttpHandler(deps: McpHandlerDeps, options: McpHandlerOptions = {}): McpHttpHandler {
  const { logger } = deps;
  const toolOptions = toolOptionsFrom(options);
  const keepAliveMs = options.sseKeepAliveMs ?? SSE_KEEP_ALIVE_MS;
  const shutdown = new AbortController();
  const inflight = cancellationFor(deps, toolOptions);
  const listening = inflight.start().catch((err: unknown) => {
    logger.error({ err }, 'cannot receive cancellations from other instances');
  });
  const wheel = new TimerWheel();
  const catalog = assembleCatalog(
    {
      upstream: {
        ...deps.upstream,
        tokenHeader: deps.config.upstream.tokenHeader,
        userHeader: deps.config.upstream.userHeader,
      },
      publicUrl: deps.config.publicUrl,
      logger,
      audit: auditAndCount(toolCallAuditor(deps.db, logger)),
      inflight,
      teamPolicy: teamToolPolicy(deps.db, CREDIT_SPENDING_TOOLS),
      reuse: new RecentSubmits(
        deps.db,
        logger,
        derivedKey(deps.config, 'social-intel-mcp recent-submits v1'),
      ),
      stopWaiting: shutdown.signal,
      // One timer for every due poll, deadline and keep-alive comment (the bypass's too).
      wheel,
    },
    options,
  );
  const taskAudits = batchedToolCallAuditor(deps.db, logger);
  const taskReads = repeatedReadsAuditor(taskAudits, { windowMs: options.taskReadWindowMs });
  const countedReads = toolCallSeries('tasks/get', 'ok');
  const tasks = new Tasks({
    db: deps.db,
    config: deps.config,
    secrets: deps.secrets,
    catalog,
    logger,
    audit: (event, repeated) => {
      toolCallSeries(event.tool, event.status).inc();
      if (repeated === undefined) taskAudits.record(event);
      else taskReads.record(event, repeated);
    },
    countRead: (task, durationMs) => {
      if (!taskReads.count(task, durationMs)) return false;
      countedReads.inc();
      return true;
    },
    serverInfo: SERVER_INFO,
    toolByName,
    leaseMs: options.taskLeaseMs ?? TASK_DEFAULTS.leaseMs,
    retentionMs: options.taskRetentionMs ?? TASK_DEFAULTS.retentionMs,
    maxWorkMs: options.taskMaxWorkMs ?? 6 * 3_600_000,
  });
  const tasksStarted = tasks.start().catch((err: unknown) => {
    logger.error({ err }, 'cannot resume the tasks of stopped instances');
  });
  const views = new ViewCatalog(options.viewsDir ?? DEFAULT_VIEWS_DIR, logger);
  const servers = new PerRequestServers({
    surface: { resources: new ResourceReader(catalog), prompts: new PromptCatalog(), views, deps: catalog },
    logger,
    keepAliveMs,
    serverOptions: serverOptions({ ...toolOptions, tasks: true }),
    tasks,
  });
  const bypass = new SdkBypass({
    exchange: servers.exchange,
    catalog,
    wheel,
    keepAliveMs,
    logger,
    serverInfo: SERVER_INFO,
    tasks,
  });
  const serve = requestServer({
    compiled: compileAll(catalog),
    views: new ViewNegotiation(views),
    listCache: new ToolsListCache(),
    servers,
    bypass,
    mode: options.sdkBypass ?? 'full',
    tasks: true,
  });

  return {
    fetch: (request, opts) => {
      const caller = (opts.authInfo.extra as { caller?: Caller } | undefined)?.caller;
      // A legacy client's cancel arrives in its own POST, for a call this or another instance runs.
      if (caller && opts.parsedBody !== undefined)
        void inflight.cancelFrom(opts.parsedBody, caller.connectionKey);
      // Off: one property read (telemetry/index.ts); on: the request's MCP spans around it.
      if (otel.on)
        return otel.t.serveHttp(request, opts.parsedBody, opts.outgoing, () =>
          serve(request, opts.authInfo, opts.parsedBody, caller, opts.outgoing),
        );
      return serve(request, opts.authInfo, opts.parsedBody, caller, opts.outgoing);
    },
    close: async () => {
      // Waiting calls answer with their handles (not an error, nothing cancelled upstream); give
      // them a bounded moment to do so and to be written out, then close the SDK's exchanges.
      shutdown.abort();
      const drained = Promise.allSettled([...catalog.running]);
      await Promise.race([drained, sleep(SHUTDOWN_DRAIN_MS, undefined, { ref: false })]);
      // Tasks' work stopped waiting without ending them: their leases are handed back to be resumed.
      await tasksStarted;
      await tasks.stop();
      taskReads.flush();
      await taskAudits.flush();
      await sleep(50);
      await servers.close();
      await listening;
      await inflight.stop();
    },
  };
}

/**
 * Where a legacy client's cancel finds its call. On PostgreSQL other instances may run it: they share a
 * directory of long-running calls. One SQLite file has one server process: the registry suffices.
 */
function cancellationFor(deps: McpHandlerDeps, toolOptions: ToolOptions): InflightCalls {
  const directory =
    deps.db.engine === 'postgres'
      ? new CallDirectory(deps.db, deps.logger, {
          ttlMs: Math.max(toolOptions.searchMaxWaitMs, toolOptions.runMaxWaitMs) + 5 * 60_000,
        })
      : undefined;
  return new InflightCalls(directory, deps.logger);
}

/** mcp_tool_calls_total's series by tool and audit status, looked up once each (task reads are frequent). */
const toolCallSeries = seriesCache((...values) => metrics.toolCalls.labels(...values));

/** Every audited tool call is also counted in mcp_tool_calls_total, by its audit status. */
function auditAndCount(
  write: (event: ToolCallAudit) => Promise<void>,
): (event: ToolCallAudit) => Promise<void> {
  return (event) => {
    toolCallSeries(event.tool, event.status).inc();
    return write(event);
  };
}
