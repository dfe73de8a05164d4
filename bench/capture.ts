/**
 * The exact tools/list request each client era sends, captured from the real clients against the
 * running gateway: the v2 SDK client (2026-07-28) and the v1 SDK client, pinned to 2025-06-18; and the
 * v2 client's tools/call of get_keyword_search, for the proxy overhead.
 */
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

const LEGACY_VERSION = '2025-06-18';

/** A fetch that records every JSON-RPC POST it sends, by method. */
function recorder() {
  const seen = new Map<string, CapturedRequest>();
  const fetchLike = async (input: string | URL | Request, init?: RequestInit) => {
    if (init?.method === 'POST' && typeof init.body === 'string') {
      const method = (JSON.parse(init.body) as { method?: string }).method ?? '';
      const headers: Record<string, string> = {};
      new Headers(init.headers).forEach((v, k) => {
        headers[k] = v;
      });
      seen.set(method, { headers, body: init.body });
    }
    return fetch(input, init);
  };
  return { seen, fetchLike };
}

export async function captureRequests(
  mcpUrl: string,
  accessToken: string,
  searchId: number,
): Promise<{ modern: CapturedRequest; legacy: CapturedRequest; toolsCall: CapturedRequest }> {
  const auth = { headers: { authorization: `Bearer ${accessToken}` } };

  const v2 = recorder();
  const modernClient = new ClientV2(
    { name: 'bench-v2', version: '1.0.0' },
    { versionNegotiation: { mode: 'auto' } },
  );
  await modernClient.connect(new TransportV2(new URL(mcpUrl), { requestInit: auth, fetch: v2.fetchLike }));
  await modernClient.listTools();
  await modernClient.callTool({ name: 'get_keyword_search', arguments: { search_id: searchId } });
  await modernClient.close();

  const v1 = recorder();
  const legacyClient = new ClientV1(
    { name: 'bench-v1', version: '1.0.0' },
    // The v1 client proposes its newest version; the legacy era measured is 2025-06-18.
    { capabilities: {} },
  );
  const transport = new TransportV1(new URL(mcpUrl), { requestInit: auth, fetch: v1.fetchLike });
  await legacyClient.connect(transport);
  await legacyClient.listTools();
  await legacyClient.close();

  const modern = v2.seen.get('tools/list');
  const legacy = v1.seen.get('tools/list');
  const toolsCall = v2.seen.get('tools/call');
  if (!modern || !legacy || !toolsCall) throw new Error('the clients sent no tools/list');
  // The v1 client sends the version it negotiated; replay the request as a 2025-06-18 client would.
  if (legacy.headers['mcp-protocol-version']) legacy.headers['mcp-protocol-version'] = LEGACY_VERSION;
  for (const r of [modern, legacy, toolsCall]) {
    delete r.headers['content-length'];
  }
  return { modern, legacy, toolsCall };
}
