/**
 * The reference: a bare Hono route returning a small JSON, served by the same listen() (same
 * @hono/node-server settings and timeouts) as the gateway. Started by bench/servers.ts with PORT set.
 */
import { Hono } from 'hono';
import { listen } from '../src/server.js';

const app = new Hono();
app.get('/', (c) => c.json({ status: 'ok' }));
app.post('/', (c) => c.json({ jsonrpc: '2.0', id: 1, result: {} }));

const server = await listen(app, Number(process.env.PORT ?? 0), '127.0.0.1');
process.stdout.write(`LISTENING ${server.port}\n`);
const stop = () => void server.close(1_000).then(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
