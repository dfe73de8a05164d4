/**
 * The exact requests each client era sends, captured on the wire from the real clients against the
 * running gateway: the v2 SDK client (2026-07-28) and the v1 SDK client, pinned to 2025-06-18; and the
 * v2 client's tools/call of get_keyword_search, for the proxy overhead.
 *
 * The clients talk to a recording proxy in this process, which keeps each request's headers as they
 * arrived over TCP and forwards it to the gateway. Recording at the fetch() level would miss what
 * fetch adds below the API, above all `accept-encoding` (undici's fetch asks for `gzip, deflate` over
 * http and `br, gzip, deflate` over https), so the bench would measure answers no real client gets.
 */
import { createServer, type IncomingHttpHeaders, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

export interface CapturedRequest {
  headers: Record<string, string>;
  body: string;
}

export interface CapturedRequests {
  modern: CapturedRequest;
  legacy: CapturedRequest;
  toolsCall: CapturedRequest;
}

const LEGACY_VERSION = '2025-06-18';
/** Hop-by-hop or per-connection headers: the load generator sets its own. */
const NOT_REPLAYED = new Set(['host', 'connection', 'content-length', 'keep-alive', 'transfer-encoding']);

function replayable(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || NOT_REPLAYED.has(name)) continue;
    out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/** A forwarding proxy that records every JSON-RPC POST, by era and method, as it came off the socket. */
async function recordingProxy(target: URL) {
  const seen = new Map<string, CapturedRequest>();
  let era = '';
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (req.method === 'POST' && body.length) {
        const method = (JSON.parse(body.toString('utf8')) as { method?: string }).method ?? '';
        seen.set(`${era} ${method}`, { headers: replayable(req.headers), body: body.toString('utf8') });
      }
      const upstream = request(
        target,
        { method: req.method, headers: { ...req.headers, host: target.host } },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on('error', () => res.destroy());
      upstream.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: new URL(`http://127.0.0.1:${port}${target.pathname}`),
    seen,
    setEra(name: string) {
      era = name;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export async function captureRequests(
  mcpUrl: string,
  accessToken: string,
  searchId: number,
): Promise<CapturedRequests> {
  const auth = { headers: { authorization: `Bearer ${accessToken}` } };
  const proxy = await recordingProxy(new URL(mcpUrl));
  try {
    proxy.setEra('modern');
    const modernClient = new ClientV2(
      { name: 'bench-v2', version: '1.0.0' },
      { versionNegotiation: { mode: 'auto' } },
    );
    await modernClient.connect(new TransportV2(proxy.url, { requestInit: auth }));
    await modernClient.listTools();
    await modernClient.callTool({ name: 'get_keyword_search', arguments: { search_id: searchId } });
    await modernClient.close();

    proxy.setEra('legacy');
    // The v1 client proposes its newest version; the legacy era measured is 2025-06-18.
    const legacyClient = new ClientV1({ name: 'bench-v1', version: '1.0.0' }, { capabilities: {} });
    await legacyClient.connect(new TransportV1(proxy.url, { requestInit: auth }));
    await legacyClient.listTools();
    await legacyClient.close();
  } finally {
    await proxy.close();
  }
  const modern = proxy.seen.get('modern tools/list');
  const legacy = proxy.seen.get('legacy tools/list');
  const toolsCall = proxy.seen.get('modern tools/call');
  if (!modern || !legacy || !toolsCall) throw new Error('the clients sent no tools/list or tools/call');
  // The v1 client sends the version it negotiated; replay the request as a 2025-06-18 client would.
  if (legacy.headers['mcp-protocol-version']) legacy.headers['mcp-protocol-version'] = LEGACY_VERSION;
  return { modern, legacy, toolsCall };
}

/** The same request without `accept-encoding`: a client that takes only identity answers. */
export function identityOnly(request: CapturedRequest): CapturedRequest {
  const { 'accept-encoding': _dropped, ...headers } = request.headers;
  return { headers, body: request.body };
}
