import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';

export interface RunningServer {
  port: number;
  /** Stops accepting, lets in-flight requests finish for up to `graceMs`, then cuts what is left. */
  close(graceMs: number): Promise<void>;
}

export interface FetchHandler {
  fetch(request: Request, env: unknown): Response | Promise<Response>;
}

/** Listens with @hono/node-server and resolves once the port is bound. */
export function listen(handler: FetchHandler, port: number, host: string): Promise<RunningServer> {
  return new Promise((resolve, reject) => {
    const server = serve(
      { fetch: (request, env) => handler.fetch(request, env), port, hostname: host },
      (info: AddressInfo) => {
        resolve({
          port: info.port,
          close: (graceMs) =>
            new Promise<void>((done) => {
              const http = server as import('node:http').Server;
              const timer = setTimeout(() => {
                http.closeAllConnections?.();
              }, graceMs);
              timer.unref();
              http.close(() => {
                clearTimeout(timer);
                done();
              });
              // Keep-alive connections that carry no request would hold close() open until they time out.
              http.closeIdleConnections?.();
            }),
        });
      },
    );
    server.once('error', reject);
  });
}
