import type { Config } from './config.js';

export interface UpstreamTarget {
  searchUrl: string;
  agentUrl: string;
  close(): Promise<void>;
}

/**
 * The real service when both upstream URLs are configured; otherwise the sandbox, started in this
 * process on an ephemeral loopback port so every upstream call still crosses real HTTP.
 */
export async function startUpstream(config: Config): Promise<UpstreamTarget> {
  if (config.upstream.searchUrl && config.upstream.agentUrl) {
    return {
      searchUrl: config.upstream.searchUrl,
      agentUrl: config.upstream.agentUrl,
      close: async () => {},
    };
  }
  const { startSandboxServer } = await import('./sandbox/server.js');
  const sandbox = await startSandboxServer({ port: 0, host: '127.0.0.1', speed: config.sandboxSpeed });
  return { searchUrl: sandbox.searchUrl, agentUrl: sandbox.agentUrl, close: () => sandbox.close() };
}
