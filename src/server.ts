import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { DefaultHeadersResponse } from './http/node-response.js';

export interface RunningServer {
  port: number;
  /** Stops accepting, lets in-flight requests finish for up to `graceMs`, then cuts what is left. */
  close(graceMs: number): Promise<void>;
}

export interface FetchHandler {
  fetch(request: Request, env: unknown): Response | Promise<Response>;
}

/**
 * Limits on how long a client may take to *send* a request (node:http server settings). They cut off
 * slow clients (slowloris: headers a byte at a time) and bodies that never finish, which would
 * otherwise hold a socket and a handler for Node's defaults (60 s for headers, 300 s for the whole
 * request, checked only every 30 s). They do not limit the response: a tool call that waits minutes
 * for an upstream search is unaffected once its request has arrived.
 */
export interface ServerLimits {
  /** Time to receive the request headers, from the connection's first byte (or the last response). */
  headersTimeoutMs: number;
  /** Time to receive the whole request, headers and body (the body limit caps its size). */
  requestTimeoutMs: number;
  /** An idle keep-alive connection is closed after this long. */
  keepAliveTimeoutMs: number;
  /** How often the server checks connections against the two request timeouts. */
  checkIntervalMs: number;
}

export const DEFAULT_SERVER_LIMITS: ServerLimits = {
  headersTimeoutMs: 20_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  checkIntervalMs: 1_000,
};

/** Listens with @hono/node-server and resolves once the port is bound. */
export function listen(
  handler: FetchHandler,
  port: number,
  host: string,
  limits: Partial<ServerLimits> = {},
): Promise<RunningServer> {
  const l = { ...DEFAULT_SERVER_LIMITS, ...limits };
  return new Promise((resolve, reject) => {
    const server = serve(
      {
        fetch: (request, env) => handler.fetch(request, env),
        port,
        hostname: host,
        serverOptions: {
          // Default headers are added when a response's head is written (http/node-response.ts).
          ServerResponse: DefaultHeadersResponse,
          headersTimeout: l.headersTimeoutMs,
          requestTimeout: l.requestTimeoutMs,
          keepAliveTimeout: l.keepAliveTimeoutMs,
          connectionsCheckingInterval: l.checkIntervalMs,
        },
      },
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
