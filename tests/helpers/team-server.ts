import { type SandboxServer, startSandboxServer } from '../../src/sandbox/server.js';
import { sandboxControl } from './sandbox-control.js';
import { startTestServer, type TestServer } from './server.js';

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
  ): Promise<Array<{ method: string; path: string; query: string; user_id: string | null; status: number }>>;
  close(): Promise<void>;
}

/**
 * The real app (pages, OAuth, bearer check, /mcp with the tool catalog and its write-cap hook)
 * against the sandbox, with short tool waits.
 */
export async function startTeamServer(env: Record<string, string> = {}): Promise<TeamServer> {
  const sandbox = await startSandboxServer({ port: 0, host: '127.0.0.1', speed: 'instant' });
  const upstream = { searchUrl: sandbox.searchUrl, agentUrl: sandbox.agentUrl };
  const server = await startTestServer({
    upstream,
    env,
    mcpOptions: {
      pollInitialMs: 20,
      pollMaxMs: 100,
      pollsPerSecond: 2_500,
      resultsGraceMs: 300,
      searchMaxWaitMs: 5_000,
      runMaxWaitMs: 5_000,
      upstreamBackoffMs: 10,
    },
  });
  const url = server.url;

  const control = sandboxControl(sandbox.searchUrl);
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
      await server.close();
      await sandbox.close();
    },
  };
}
