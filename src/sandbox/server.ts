import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { createSandboxApp } from './app.js';
import { AGENT_PREFIX, DEFAULT_HOST, DEFAULT_PORT, INITIAL_CREDITS } from './constants.js';
import type { Speed } from './speed.js';
import type { SandboxPersistence } from './state-file.js';

export type { SandboxApp, SandboxAppOptions, SandboxHandle } from './app.js';
export { createSandboxApp } from './app.js';

export interface SandboxServerOptions {
  port?: number;
  host?: string;
  speed?: Speed;
  /** Keep credentials and records in a file across restarts (state-file.ts). */
  persistence?: SandboxPersistence;
}

export interface SandboxServer {
  searchUrl: string;
  agentUrl: string;
  /** A ready credential: INITIAL_CREDITS credits, producer permission. */
  token: string;
  close(): Promise<void>;
}

const DEFAULT_CREDENTIAL_NAME = 'Sandbox default';

/** Serves both hosts on one port (agent host under /agent) and creates one ready credential. */
export async function startSandboxServer(options: SandboxServerOptions = {}): Promise<SandboxServer> {
  const app = createSandboxApp({
    ...(options.speed === undefined ? {} : { speed: options.speed }),
    ...(options.persistence ? { persistence: options.persistence } : {}),
  });
  const host = options.host ?? DEFAULT_HOST;
  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const s = serve({ fetch: app.fetch, port: options.port ?? DEFAULT_PORT, hostname: host }, () =>
      resolve(s),
    );
    s.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  const searchUrl = `http://${urlHost}:${port}`;
  // A restored sandbox keeps the ready credential it made the first time.
  const cred =
    [...app.sandbox.store.credentials.values()].find((c) => c.name === DEFAULT_CREDENTIAL_NAME) ??
    app.sandbox.store.createCredential({
      credits: INITIAL_CREDITS,
      producer: true,
      name: DEFAULT_CREDENTIAL_NAME,
    });
  let closed: Promise<void> | null = null;
  return {
    searchUrl,
    agentUrl: `${searchUrl}${AGENT_PREFIX}`,
    token: cred.token,
    close() {
      closed ??= new Promise<void>((resolve) => {
        app.sandbox.dispose();
        server.close(() => resolve());
        // Keep-alive and hanging connections would otherwise hold close() open.
        if ('closeAllConnections' in server) server.closeAllConnections();
      });
      return closed;
    },
  };
}
