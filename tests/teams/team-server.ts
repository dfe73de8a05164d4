import { Hono } from 'hono';
import { createLogger } from '../../src/logger.js';
import { createMcpHttpHandler } from '../../src/mcp/handler.js';
import { mcpRoutes } from '../../src/mcp/route.js';
import { requiredScopeForTool } from '../../src/mcp/tools/index.js';
import { type SandboxServer, startSandboxServer } from '../../src/sandbox/server.js';
import { type FetchHandler, listen } from '../../src/server.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

// biome-ignore lint/suspicious/noExplicitAny: sandbox control answers are arbitrary JSON
export type Json = any;

export interface TeamServer {
  sandbox: SandboxServer;
  server: TestServer;
  /** PUBLIC_URL: the OAuth issuer, the pages and /mcp with the real tool catalog. */
  url: string;
  mcpUrl: string;
  control(method: string, path: string, body?: unknown): Promise<Json>;
  /** What reached the sandbox with this upstream token. */
  requests(
    token: string,
  ): Promise<Array<{ method: string; path: string; user_id: string | null; status: number }>>;
  close(): Promise<void>;
}

/**
 * The real app (pages, OAuth, bearer check) against the sandbox, with /mcp served by the real tool
 * catalog (createMcpHttpHandler, which carries the write-cap hook) in front of it. app.ts still mounts a
 * tool-less placeholder at /mcp until the tool catalog is wired there, so this front routes /mcp to the
 * same mcpRoutes with the real handler and everything else to the app. One origin, so PUBLIC_URL,
 * the issuer, cookies and the resource all match as in production.
 */
export async function startTeamServer(env: Record<string, string> = {}): Promise<TeamServer> {
  const sandbox = await startSandboxServer({ port: 0, host: '127.0.0.1', speed: 'instant' });
  const upstream = { searchUrl: sandbox.searchUrl, agentUrl: sandbox.agentUrl };
  let target: FetchHandler = { fetch: () => new Response('starting', { status: 503 }) };
  const front = await listen({ fetch: (request, e) => target.fetch(request, e) }, 0, '127.0.0.1');
  const url = `http://localhost:${front.port}`;
  const server = await startTestServer({ upstream, env: { PUBLIC_URL: url, ...env } });
  const handler = createMcpHttpHandler(
    { config: server.config, db: server.db, logger: createLogger('silent'), upstream },
    {
      pollInitialMs: 20,
      pollMaxMs: 100,
      resultsGraceMs: 300,
      searchMaxWaitMs: 5_000,
      runMaxWaitMs: 5_000,
      upstreamBackoffMs: 10,
    },
  );
  const app = new Hono();
  app.route(
    '/',
    mcpRoutes({
      config: server.config,
      db: server.db,
      secrets: server.secrets,
      handler,
      requiredScopeForTool,
    }) as never,
  );
  app.all('*', (c) => server.app.fetch(c.req.raw, c.env));
  target = app;

  const control = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${sandbox.searchUrl}/__sandbox${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await res.json()) as Json;
    if (!res.ok) throw new Error(`sandbox ${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  return {
    sandbox,
    server,
    url,
    mcpUrl: `${url}/mcp`,
    control,
    async requests(token) {
      return (await control('GET', `/credentials/${encodeURIComponent(token)}/requests`)).requests;
    },
    async close() {
      await handler.close();
      await front.close(1_000);
      await server.close();
      await sandbox.close();
    },
  };
}
