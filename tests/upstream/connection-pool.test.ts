import { createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createUpstreamClient } from '../../src/upstream/client.js';
import { UPSTREAM_CONNECTIONS_PER_ORIGIN } from '../../src/upstream/transport.js';

/**
 * The upstream pool's connection limit (src/upstream/transport.ts): a burst of reads (waiting calls'
 * polls falling due together) shares a bounded set of connections instead of opening one each, which
 * flooded the upstream's listen queue.
 */
describe('upstream connection pool', () => {
  it('sends a burst of reads over at most UPSTREAM_CONNECTIONS_PER_ORIGIN connections, all answered', async () => {
    const sockets = new Set<Socket>();
    let open = 0;
    let mostOpen = 0;
    const upstream = createServer((req, res) => {
      const id = Number(/(\d+)$/.exec(req.url ?? '')?.[1]);
      // Answered a little later, so the burst's reads overlap.
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ id, status: 'started', status_percentage: '40' }));
      }, 20);
    });
    upstream.on('connection', (socket: Socket) => {
      sockets.add(socket);
      open++;
      mostOpen = Math.max(mostOpen, open);
      socket.on('close', () => open--);
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    try {
      const client = createUpstreamClient({ searchUrl: url, agentUrl: url });
      const creds = { token: 'pool-test-token', userId: 'analyst-7' };
      const burst = UPSTREAM_CONNECTIONS_PER_ORIGIN * 3;
      const records = await Promise.all(
        Array.from({ length: burst }, (_, i) => client.getKeywordSearch(creds, i + 1)),
      );
      expect(records.map((r) => r.id)).toEqual(Array.from({ length: burst }, (_, i) => i + 1));
      // Without the limit each of the reads in flight had a connection of its own.
      expect(mostOpen).toBeGreaterThan(1);
      expect(mostOpen).toBeLessThanOrEqual(UPSTREAM_CONNECTIONS_PER_ORIGIN);
      expect(sockets.size).toBeLessThanOrEqual(UPSTREAM_CONNECTIONS_PER_ORIGIN);
    } finally {
      upstream.closeAllConnections();
      await new Promise((resolve) => upstream.close(resolve));
    }
  });
});
