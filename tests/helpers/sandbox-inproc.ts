import { SandboxClock } from '../../src/sandbox/clock.js';
import { createSandboxApp, type SandboxApp, type SandboxAppOptions } from '../../src/sandbox/server.js';
import type { Speed } from '../../src/sandbox/speed.js';

export interface InProc {
  app: SandboxApp;
  clock: SandboxClock;
  /** A request against the app (no socket); the raw body text is returned so tests can compare bytes. */
  req(
    method: string,
    path: string,
    opts?: { token?: string; userId?: string; body?: unknown },
  ): Promise<{ status: number; text: string }>;
  /** A control API request (`/__sandbox/…`), JSON body parsed. */
  control(method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }>;
  advance(ms: number): void;
  dispose(): void;
}

/**
 * The sandbox app in this process with a frozen clock at `start` and no background tick, so every
 * state change happens at an instant the test chose. Nothing of the sandbox is replaced.
 */
export function inProcSandbox(
  start: number,
  speed: Speed = 'demo',
  extra: Pick<SandboxAppOptions, 'webhooksToPrivateAddresses'> = {},
): InProc {
  const clock = new SandboxClock(() => start);
  clock.freeze();
  const app = createSandboxApp({ speed, clock, tick: false, ...extra });
  return {
    app,
    clock,
    async req(method, path, opts = {}) {
      const headers: Record<string, string> = {};
      if (opts.token !== undefined) headers['X-SERVICE-TOKEN'] = opts.token;
      if (opts.userId !== undefined) headers['X-SERVICE-USER-ID'] = opts.userId;
      if (opts.body !== undefined) headers['content-type'] = 'application/json';
      const res = await app.request(path, {
        method,
        headers,
        body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
      });
      return { status: res.status, text: await res.text() };
    },
    async control(method, path, body) {
      const res = await app.request(`/__sandbox${path}`, {
        method,
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, body: await res.json() };
    },
    advance(ms) {
      clock.advance(ms);
    },
    dispose() {
      app.sandbox.dispose();
    },
  };
}
