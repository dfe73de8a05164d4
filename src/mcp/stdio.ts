import type { Readable, Writable } from 'node:stream';
import type { AuthInfo, JSONRPCMessage, MessageExtraInfo, Transport } from '@modelcontextprotocol/server';
import { McpServer } from '@modelcontextprotocol/server';
import { StdioServerTransport, serveStdio } from '@modelcontextprotocol/server/stdio';
import type { Logger } from '../logger.js';
import { SCOPES } from '../oauth/scopes.js';
import { otel } from '../telemetry/index.js';
import { DEFAULT_VIEWS_DIR, ViewCatalog } from './apps/catalog.js';
import { viewsDeclaration } from './apps/negotiate.js';
import type { UpstreamUserCaller } from './auth/caller.js';
import { assembleCatalog, type CallTuning } from './call-assembly.js';
import { InflightCalls } from './cancellation/inflight.js';
import { compileAll } from './catalog/compiled-catalog.js';
import { registerEverything, SERVER_INFO, serverOptions } from './per-request-server.js';
import { PromptCatalog } from './prompts/serve.js';
import { ResourceReader } from './resources/read.js';
import { reachOf } from './tools/index.js';

export interface StdioServerDeps {
  upstream: { searchUrl: string; agentUrl: string; tokenHeader: string; userHeader: string };
  /** The upstream user every call acts as. */
  credentials: { token: string; userId: string };
  /** The same knobs and upstream policy as the hosted server's; unset, the same defaults. */
  tuning: CallTuning;
  logger: Logger;
  viewsDir?: string;
  stdin?: Readable;
  stdout?: Writable;
}

export interface StdioServerHandle {
  /** Resolves when the client has gone (standard input closed) and waiting calls have ended. */
  closed: Promise<void>;
  close(): Promise<void>;
}

/**
 * The tool catalog over stdio, for clients that start a local server (the API description's local
 * MCP server): the same compiled tools, resources, prompts and execute path as /mcp, one connection,
 * one upstream user with every permission (their own token carries all of them). Nothing is stored:
 * no database, so no audit row (each call is one log line on standard error instead) and no team
 * policy. The SDK's serveStdio picks the protocol era from the client's first message; the caller
 * reaches the tools as on /mcp, in each request's auth info, which the stdio transport has none of:
 * the connection's channel adds it.
 */
export function serveCatalogOverStdio(deps: StdioServerDeps): StdioServerHandle {
  const { logger } = deps;
  const shutdown = new AbortController();
  const catalog = assembleCatalog(
    {
      upstream: deps.upstream,
      publicUrl: '',
      logger,
      // No database: each call is one log line on standard error instead of an audit row.
      audit: async (event) => {
        logger.info(
          { tool: event.tool, status: event.status, durationMs: Math.round(event.durationMs) },
          'tool call',
        );
      },
      inflight: new InflightCalls(undefined, logger),
      stopWaiting: shutdown.signal,
    },
    deps.tuning,
  );
  const views = new ViewCatalog(deps.viewsDir ?? DEFAULT_VIEWS_DIR, logger);
  const surface = {
    resources: new ResourceReader(catalog),
    prompts: new PromptCatalog(),
    views,
    deps: catalog,
  };
  const tools = compileAll(catalog).forReach(reachOf(SCOPES));
  const caller: UpstreamUserCaller = {
    kind: 'upstream',
    via: 'stdio',
    key: 'local',
    connectionKey: 'upstream:local',
    clientId: 'upstream-stdio',
    scopes: SCOPES,
    upstream: deps.credentials,
  };
  const authInfo: AuthInfo = { token: '', clientId: caller.clientId, scopes: [...SCOPES], extra: { caller } };

  // One connection: whether its client renders views is what its first request declared.
  let withViews: boolean | null = null;
  let ended: () => void = () => {};
  const closed = new Promise<void>((resolve) => {
    ended = resolve;
  });
  const wire = new ForwardingTransport(
    new StdioServerTransport(deps.stdin, deps.stdout),
    (message, extra) => {
      if (withViews === null && 'method' in message && 'id' in message) {
        const declaration = viewsDeclaration(message);
        withViews = views.available && declaration.kind !== 'connection' && declaration.declared;
      }
      return extra;
    },
    () => {
      shutdown.abort();
      void Promise.allSettled([...catalog.running]).then(() => ended());
    },
  );
  const handle = serveStdio(
    () => {
      const server = new McpServer(SERVER_INFO, serverOptions(catalog.options));
      registerEverything(server, tools, surface, withViews === true);
      const connect = server.connect.bind(server);
      // Every message of the connection carries the caller, as /mcp's route puts it on each request.
      server.connect = (channel) =>
        connect(traced(new ForwardingTransport(channel, (_m, extra) => ({ ...extra, authInfo }))));
      return server;
    },
    { transport: wire, onerror: (err) => logger.debug({ err }, 'stdio connection reported') },
  );
  return {
    closed,
    close: async () => {
      await handle.close();
      await closed;
    },
  };
}

/**
 * A transport that passes everything through to `inner`, letting `inbound` see (and add to) what each
 * incoming message carries, and `onEnd` learn that the connection closed.
 */
class ForwardingTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;

  constructor(
    private readonly inner: Transport,
    inbound: (message: JSONRPCMessage, extra: MessageExtraInfo | undefined) => MessageExtraInfo | undefined,
    onEnd?: () => void,
  ) {
    inner.onmessage = (message, extra) => this.onmessage?.(message, inbound(message, extra));
    inner.onerror = (error) => this.onerror?.(error);
    inner.onclose = () => {
      onEnd?.();
      this.onclose?.();
    };
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  send(...args: Parameters<Transport['send']>): Promise<void> {
    return this.inner.send(...args);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  setProtocolVersion = (version: string): void => {
    this.inner.setProtocolVersion?.(version);
  };
}

/**
 * The server's channel with an MCP span per message when telemetry is on: a request's handling runs in
 * its span's context (here, next to the SDK's handler: serveStdio's own dispatch does not keep it), and
 * the answer with its id ends it.
 */
function traced(inner: Transport): Transport {
  if (!otel.on) return inner;
  const spans = otel.t.stdio();
  const send = inner.send.bind(inner);
  inner.send = (message, options) => {
    spans.outbound(message);
    return send(message, options);
  };
  let deliver: Transport['onmessage'];
  Object.defineProperty(inner, 'onmessage', {
    configurable: true,
    get: () => deliver,
    set: (handler: Transport['onmessage']) => {
      deliver = handler && ((message, extra) => spans.inbound(message, () => handler(message, extra)));
    },
  });
  return inner;
}
