import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SYNC_COMPRESS_MAX_BYTES } from '../../src/http/compress.js';
import { connectV2, type Harness, startHarness } from '../helpers/harness.js';

/**
 * JSON answers are compressed with br or gzip when the client accepts it, never server-sent
 * event streams, never small bodies. undici's `request` is used because it leaves bodies as sent.
 */
let h: Harness;
let access: string;
let upstream: string;
beforeAll(async () => {
  h = await startHarness();
  upstream = await h.credential({ producer: true, synth_posts: 400 });
  access = await h.token({ upstreamToken: upstream });
});
afterAll(async () => {
  await h?.close();
});

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

/** A POST to /mcp's headers, with Accept-Encoding when given and the 2026-07-28 routing headers when given. */
function mcpHeaders(acceptEncoding: string | null, routing: Record<string, string> = {}) {
  return {
    authorization: `Bearer ${access}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    ...(acceptEncoding === null ? {} : { 'accept-encoding': acceptEncoding }),
    ...routing,
  };
}

/** A tools/list as the 2026-07-28 era sends it, or as the 2025 era does. */
async function toolsList(acceptEncoding: string | null, modern = true) {
  const res = await request(h.mcpUrl, {
    method: 'POST',
    headers: mcpHeaders(
      acceptEncoding,
      modern ? { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' } : {},
    ),
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/list',
      params: modern ? { _meta: META } : {},
    }),
  });
  const body = Buffer.from(await res.body.arrayBuffer());
  const header = (name: string) => {
    const v = res.headers[name];
    return Array.isArray(v) ? v.join(', ') : v;
  };
  return {
    status: res.statusCode,
    body,
    encoding: header('content-encoding'),
    type: header('content-type'),
    vary: header('vary'),
  };
}

/** A 2026-07-28 get_keyword_search, as undici sends it (bodies left as sent). */
async function getKeywordSearch(args: Record<string, unknown>, acceptEncoding: string | null) {
  const res = await request(h.mcpUrl, {
    method: 'POST',
    headers: mcpHeaders(acceptEncoding, {
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': 'get_keyword_search',
    }),
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'get_keyword_search', arguments: args, _meta: META },
    }),
  });
  return {
    status: res.statusCode,
    encoding: res.headers['content-encoding'],
    vary: res.headers.vary,
    type: res.headers['content-type'],
    length: res.headers['content-length'],
    body: Buffer.from(await res.body.arrayBuffer()),
  };
}

describe('response compression', () => {
  it('sends JSON as br when the client accepts it, and says so', async () => {
    const plain = await toolsList(null);
    expect(plain.encoding).toBeUndefined();
    expect(plain.type).toMatch(/^application\/json/);
    const br = await toolsList('gzip, deflate, br');
    expect(br.status).toBe(200);
    expect(br.encoding).toBe('br');
    expect(br.vary).toMatch(/Accept-Encoding/i);
    expect(br.body.length).toBeLessThan(plain.body.length / 3);
    expect(JSON.parse(brotliDecompressSync(br.body).toString())).toEqual(JSON.parse(plain.body.toString()));
  });

  it('follows the client preferences: gzip when br is refused or not offered, nothing for identity', async () => {
    for (const accept of ['gzip', 'br;q=0, gzip', 'gzip;q=1, br;q=0.5']) {
      const r = await toolsList(accept);
      expect(r.encoding, accept).toBe('gzip');
      expect(JSON.parse(gunzipSync(r.body).toString()).result.tools.length, accept).toBeGreaterThan(0);
    }
    for (const accept of ['identity', 'deflate', 'br;q=0, gzip;q=0']) {
      expect((await toolsList(accept)).encoding, accept).toBeUndefined();
    }
  });

  it('never compresses an event stream', async () => {
    // A 2025-era tools/call is answered with an event stream (its result is one event of it).
    const res = await request(h.mcpUrl, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${access}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'accept-encoding': 'br, gzip',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/call',
        params: { name: 'usage', arguments: {} },
      }),
    });
    const body = Buffer.from(await res.body.arrayBuffer()).toString();
    expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(body).toMatch(/^event: message\ndata: \{/m);
  });

  it('answers a 2025-era tools/list with JSON, compressed like any other', async () => {
    const plain = await toolsList(null, false);
    const gz = await toolsList('gzip', false);
    expect(plain.type).toMatch(/^application\/json/);
    expect(gz.encoding).toBe('gzip');
    expect(gunzipSync(gz.body).toString()).toBe(plain.body.toString());
  });

  it('compresses a tool result, small or large (on the event loop below 64 KB, on the pool above)', async () => {
    const client = await connectV2(h.mcpUrl, access);
    const made = await client.callTool({
      name: 'submit_keyword_search',
      arguments: { query: 'heat pumps', platforms: ['twitter', 'reddit', 'youtube'] },
    });
    await client.close();
    const id = (made.structuredContent as { search_id: number }).search_id;
    for (const detail of ['summary', 'full']) {
      const plain = await getKeywordSearch({ search_id: id, detail }, null);
      expect(plain.encoding).toBeUndefined();
      const gz = await getKeywordSearch({ search_id: id, detail }, 'gzip');
      const br = await getKeywordSearch({ search_id: id, detail }, 'br');
      expect([gz.encoding, br.encoding]).toEqual(['gzip', 'br']);
      expect(gz.vary).toMatch(/Accept-Encoding/i);
      expect(gunzipSync(gz.body).toString()).toBe(plain.body.toString());
      expect(brotliDecompressSync(br.body).toString()).toBe(plain.body.toString());
      if (detail === 'full') expect(plain.body.length).toBeGreaterThan(SYNC_COMPRESS_MAX_BYTES);
      else expect(plain.body.length).toBeLessThan(SYNC_COMPRESS_MAX_BYTES);
    }
  });

  it('leaves small JSON bodies alone', async () => {
    const res = await request(`${h.server.url}/healthz`, { headers: { 'accept-encoding': 'br, gzip' } });
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(await res.body.json()).toEqual({ status: 'ok' });
  });

  it('sends a small tool result as made, saying it varies on Accept-Encoding', async () => {
    const unknown = { search_id: 987654321 };
    const plain = (await getKeywordSearch(unknown, null)).body.toString();
    const offered = await getKeywordSearch(unknown, 'br, gzip');
    const text = offered.body.toString();
    expect(offered.status).toBe(200);
    expect(offered.encoding).toBeUndefined();
    expect(offered.vary).toMatch(/Accept-Encoding/i);
    expect(offered.type).toMatch(/^application\/json/);
    expect(Number(offered.length)).toBe(offered.body.length);
    expect(offered.body.length).toBeLessThan(1_024);
    expect(JSON.parse(text).result.isError).toBe(true);
    expect(text).toBe(plain);
  });
});
