import { request } from 'node:http';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { listen } from '../../src/server.js';

/** Sends a GET and resolves with status and body, or the connection error. */
function get(port: number, path: string): Promise<{ status: number; body: string } | { error: string }> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (d) => {
        body += d;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', (e) => resolve({ error: e.message }));
    req.end();
  });
}

// The same `listen().close()` that main.ts calls on SIGTERM/SIGINT.
describe('graceful shutdown', () => {
  it('lets a request in flight finish, and refuses new connections', async () => {
    const app = new Hono();
    let started!: () => void;
    const inFlight = new Promise<void>((r) => {
      started = r;
    });
    app.get('/slow', async (c) => {
      started();
      await new Promise((r) => setTimeout(r, 300));
      return c.text('finished');
    });
    const server = await listen(app, 0, '127.0.0.1');
    const slow = get(server.port, '/slow');
    await inFlight;
    const closing = server.close(5_000);
    expect(await slow).toEqual({ status: 200, body: 'finished' });
    await closing;
    expect(await get(server.port, '/slow')).toHaveProperty('error');
  });

  it('cuts requests still running when the grace period ends', async () => {
    const app = new Hono();
    app.get('/hang', () => new Promise<Response>(() => {}));
    const server = await listen(app, 0, '127.0.0.1');
    const hanging = get(server.port, '/hang');
    await new Promise((r) => setTimeout(r, 50));
    const t0 = Date.now();
    await server.close(200);
    expect(Date.now() - t0).toBeLessThan(3_000);
    expect(await hanging).toHaveProperty('error');
  });
});
