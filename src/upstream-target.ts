import { dirname, join } from 'node:path';
import type { Config } from './config.js';
import { SecretBox } from './security/secrets.js';

export interface UpstreamTarget {
  searchUrl: string;
  agentUrl: string;
  close(): Promise<void>;
}

/** The in-process sandbox's state file, beside the database (and the development key). */
export function sandboxStatePath(config: Config): string {
  return join(dirname(config.databasePath), 'sandbox-state.sealed');
}

/** Binds the sealed sandbox state to its purpose, so no other envelope opens as it (AES-GCM AAD). */
const SANDBOX_STATE_CONTEXT = 'sandbox-state';

/**
 * The real service when both upstream URLs are configured; otherwise the sandbox, started in this
 * process on an ephemeral loopback port so every upstream call still crosses real HTTP. The sandbox
 * keeps its credentials and records in the data folder, encrypted with SECRET_KEY (it holds sandbox
 * tokens), so a person's linked sandbox credentials still work after a restart.
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
  const secrets = new SecretBox(config.secretKeys);
  const sandbox = await startSandboxServer({
    port: 0,
    host: '127.0.0.1',
    speed: config.sandboxSpeed,
    persistence: {
      path: sandboxStatePath(config),
      codec: {
        seal: (text) => secrets.seal(text, SANDBOX_STATE_CONTEXT),
        open: (text) => secrets.open(text, SANDBOX_STATE_CONTEXT),
      },
    },
  });
  return { searchUrl: sandbox.searchUrl, agentUrl: sandbox.agentUrl, close: () => sandbox.close() };
}

/**
 * The stdio server's upstream: the configured hosts, or the sandbox started in this process with
 * nothing kept on disk (its records last as long as the process) and its ready credential, which the
 * stdio server acts with when no token is configured.
 */
export async function startLocalUpstream(options: {
  searchUrl: string | null;
  agentUrl: string | null;
  speed: Config['sandboxSpeed'];
}): Promise<UpstreamTarget & { sandboxToken: string | null }> {
  if (options.searchUrl && options.agentUrl) {
    return {
      searchUrl: options.searchUrl,
      agentUrl: options.agentUrl,
      sandboxToken: null,
      close: async () => {},
    };
  }
  const { startSandboxServer } = await import('./sandbox/server.js');
  const sandbox = await startSandboxServer({ port: 0, host: '127.0.0.1', speed: options.speed });
  return {
    searchUrl: sandbox.searchUrl,
    agentUrl: sandbox.agentUrl,
    sandboxToken: sandbox.token,
    close: () => sandbox.close(),
  };
}
