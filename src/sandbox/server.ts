import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { createSandboxApp } from './app.js';
import { AGENT_PREFIX, DEFAULT_HOST, DEFAULT_PORT, INITIAL_CREDITS } from './constants.js';
import type { Speed } from './speed.js';

export type { SandboxApp, SandboxAppOptions, SandboxHandle } from './app.js';
export { createSandboxApp } from './app.js';

export interface SandboxServerOptions {
  port?: number;
  host?: string;
  speed?: Speed;
}

export interface SandboxServer {
  searchUrl: string;
  agentUrl: string;
  /** A ready credential: INITIAL_CREDITS credits, producer permission. */
  token: string;
  close(): Promise<void>;
}

/** Serves both hosts on one port (agent host under /agent) and creates one ready credential. */
export async function startSandboxServer(options: SandboxServerOptions = {}): Promise<SandboxServer> {
  const app = createSandboxApp(options.speed === undefined ? {} : { speed: options.speed });
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
  const cred = app.sandbox.store.createCredential({
    credits: INITIAL_CREDITS,
    producer: true,
    name: 'Sandbox default',
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
