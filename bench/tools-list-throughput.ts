/**
 * Rough throughput of tools/list through our handler vs a bare Hono route, and vs the SDK's
 * documented stateless pattern (a server whose tools' JSON Schemas are converted on every request).
 * Run: npx tsx bench/tools-list-throughput.ts [seconds-per-variant]
 * Loopback, one process (client and server share the cores): compare the ratios, not the numbers.
 */
import { type AuthInfo, createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { Hono } from 'hono';
import { loadConfig } from '../src/config.js';
import { openMigratedStore } from '../src/db/store/index.js';
import { createLogger } from '../src/logger.js';
import type { Caller } from '../src/mcp/auth/caller.js';
import { createMcpHttpHandler } from '../src/mcp/handler.js';
import { ALL_TOOLS } from '../src/mcp/tools/index.js';
import { EVERY_TOOL } from '../src/mcp/tools/toolsets.js';
import { SCOPES } from '../src/oauth/scopes.js';
import { SecretBox } from '../src/security/secrets.js';
import { listen } from '../src/server.js';
import { TEST_SECRET_KEY, tempDir } from '../tests/helpers/temp.js';

const seconds = Number(process.argv[2] ?? 3);
const CONCURRENCY = 16;

const dir = tempDir('sim-bench-');
const config = loadConfig({
  DATABASE_PATH: `${dir.path}/bench.db`,
  SECRET_KEY: TEST_SECRET_KEY,
  LOG_LEVEL: 'silent',
});
const { store: db } = await openMigratedStore({ databasePath: config.databasePath });
const logger = createLogger('silent');
const caller: Caller = {
  kind: 'member',
  connectionKey: 'g',
  grantId: 'g',
  userId: 'u',
  workspaceId: 'w',
  clientId: 'c',
  scopes: [...SCOPES],
  grantKind: 'oauth',
  selection: EVERY_TOOL,
  team: { role: 'owner', canChangeWebhook: null, membersReadTeamWork: true },
  upstream: { token: 't', userId: 'u' },
};
const authInfo: AuthInfo = { token: 'x', clientId: 'c', scopes: [...SCOPES], extra: { caller } };

const ours = createMcpHttpHandler({
  config,
  db,
  logger,
  upstream: { searchUrl: 'http://127.0.0.1:9', agentUrl: 'http://127.0.0.1:9' },
  secrets: new SecretBox(config.secretKeys),
});

// The documented pattern: a fresh server with every tool registered from its zod schemas per request.
const naive = createMcpHandler(() => {
  const server = new McpServer({ name: 'naive', version: '1' });
  for (const t of ALL_TOOLS) {
    server.registerTool(
      t.name,
      {
        title: t.title,
        description: t.description,
        inputSchema: t.input as never,
        outputSchema: t.output as never,
        annotations: t.annotations,
      },
      (async () => ({ content: [] })) as never,
    );
  }
  return server;
});

const app = new Hono();
app.post('/bare', (c) => c.json({ jsonrpc: '2.0', id: 1, result: { ok: true } }));
// The floor for any tools/list: a route that only serializes the same (cached) catalog object.
let catalog: unknown = null;
app.post('/bare-catalog', (c) => c.json({ jsonrpc: '2.0', id: 1, result: catalog }));
// As the /mcp route calls it (it has parsed the body for its scope check): tools/list replay applies.
app.post('/ours', async (c) => ours.fetch(c.req.raw, { authInfo, parsedBody: await c.req.json() }));
// Without a parsed body: every request goes through the SDK (per-request McpServer, cached schemas).
app.post('/ours-sdk', (c) => ours.fetch(c.req.raw, { authInfo }));
app.post('/naive', (c) => naive.fetch(c.req.raw, { authInfo }));
const server = await listen(app, 0, '127.0.0.1');
const base = `http://127.0.0.1:${server.port}`;

const meta = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
const modern = {
  headers: {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': 'tools/list',
  },
  body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: meta } }),
};
const legacy = {
  headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
  body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
};

async function check(path: string, req: { headers: Record<string, string>; body: string }) {
  const res = await fetch(base + path, { method: 'POST', ...req });
  const text = await res.text();
  if (!res.ok || (!path.startsWith('/bare') && !text.includes('submit_keyword_search'))) {
    throw new Error(`${path}: ${res.status} ${text.slice(0, 200)}`);
  }
}

/** Requests/s for `ms`, CONCURRENCY requests in flight, over loopback HTTP or in process (app.request). */
async function run(
  path: string,
  req: { headers: Record<string, string>; body: string },
  http: boolean,
  ms: number,
) {
  const end = Date.now() + ms;
  let count = 0;
  const worker = async () => {
    while (Date.now() < end) {
      try {
        const res = http
          ? await fetch(base + path, { method: 'POST', ...req })
          : await app.request(path, { method: 'POST', ...req });
        await res.arrayBuffer();
        count++;
      } catch {
        // A keep-alive socket closed under us (loopback, loaded machine): not counted.
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return (count * 1000) / ms;
}

const variants = [
  ['bare Hono route', '/bare', modern],
  ['bare Hono route serializing the same catalog', '/bare-catalog', modern],
  ['ours, tools/list, 2026-07-28', '/ours', modern],
  ['ours, tools/list, 2025 (legacy stateless)', '/ours', legacy],
  ['ours without replay, 2026-07-28', '/ours-sdk', modern],
  ['ours without replay, 2025', '/ours-sdk', legacy],
  ['documented pattern, 2026-07-28', '/naive', modern],
  ['documented pattern, 2025', '/naive', legacy],
] as const;
catalog = ((await (await fetch(`${base}/ours`, { method: 'POST', ...modern })).json()) as { result: unknown })
  .result;
console.log(`tools/list result: ${JSON.stringify(catalog).length} bytes of JSON`);
for (const [, path, req] of variants) await check(path, req);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
for (const http of [false, true]) {
  const samples = variants.map(() => [] as number[]);
  // Interleaved rounds so background load drifts over every variant alike.
  for (let round = 0; round < 3; round++) {
    for (const [i, [, path, req]] of variants.entries()) {
      await run(path, req, http, 200); // warm-up
      samples[i]?.push(await run(path, req, http, (seconds * 1000) / 3));
    }
  }
  const bare = median(samples[0] ?? []);
  console.log(
    http ? '\nover loopback HTTP (client in the same process):' : 'in process (app.request, no sockets):',
  );
  for (const [i, [label]] of variants.entries()) {
    const rps = median(samples[i] ?? []);
    console.log(
      `  ${label.padEnd(44)} ${rps.toFixed(0).padStart(7)} req/s  ${((rps / bare) * 100).toFixed(1).padStart(5)} %`,
    );
  }
}
await ours.close();
await naive.close();
await server.close(1_000);
await db.close();
dir.remove();
