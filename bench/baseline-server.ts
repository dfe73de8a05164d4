/**
 * The reference: a bare Hono route returning a small JSON, served by the same listen() (same
 * @hono/node-server settings and timeouts) as the gateway. Started by bench/servers.ts with PORT set.
 * With CEILING_BODY_FILE set, `POST /ceiling` answers those bytes (the gateway's own tools/list answer)
 * as CEILING_CONTENT_TYPE: what a server that did nothing but send that answer would reach.
 * With FLOOR_URL set, `POST /floor` reads the request body, makes one GET of FLOOR_URL with the headers
 * in FLOOR_HEADERS (JSON) through undici's request(), as src/upstream/transport.ts does, and answers
 * the upstream body untouched: the least any gateway that calls upstream per request can cost.
 */
import { readFileSync } from 'node:fs';
import { Hono } from 'hono';
import { request } from 'undici';
import { listen } from '../src/server.js';

const app = new Hono();
app.get('/', (c) => c.json({ status: 'ok' }));
app.post('/', (c) => c.json({ jsonrpc: '2.0', id: 1, result: {} }));
const ceilingFile = process.env.CEILING_BODY_FILE;
if (ceilingFile) {
  const bytes = readFileSync(ceilingFile);
  const contentType = process.env.CEILING_CONTENT_TYPE ?? 'application/json';
  app.post('/ceiling', (c) => c.body(bytes, 200, { 'content-type': contentType }));
}

const floorUrl = process.env.FLOOR_URL;
if (floorUrl) {
  const headers = JSON.parse(process.env.FLOOR_HEADERS ?? '{}') as Record<string, string>;
  app.post('/floor', async (c) => {
    await c.req.text();
    const upstream = await request(floorUrl, { method: 'GET', headers });
    const body = await upstream.body.text();
    return c.body(body, upstream.statusCode as 200, { 'content-type': 'application/json' });
  });
}

const server = await listen(app, Number(process.env.PORT ?? 0), '127.0.0.1');
process.stdout.write(`LISTENING ${server.port}\n`);
const stop = () => void server.close(1_000).then(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
