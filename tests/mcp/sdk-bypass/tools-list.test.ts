import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_TOOLS } from '../../../src/mcp/tools/index.js';
import { connectV1, connectV2, type Harness, type Json, startHarness } from '../../helpers/harness.js';

/** What the catalog says each grant below may list: the tools its scopes cover. */
const READ_TOOLS = ALL_TOOLS.filter((t) => t.scope.endsWith(':read')).length;
const ACCOUNT_TOOLS = ALL_TOOLS.filter((t) => t.scope.startsWith('account:')).length;

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

async function rawList(
  accessToken: string,
  id: number | string,
  modern: boolean,
): Promise<{ text: string; type: string }> {
  const meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  const res = await fetch(h.mcpUrl, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${accessToken}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(modern ? { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' } : {}),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/list', params: modern ? { _meta: meta } : {} }),
  });
  expect(res.status).toBe(200);
  return { text: await res.text(), type: res.headers.get('content-type') ?? '' };
}

describe('tools/list, built once', () => {
  it.each([
    ['2026-07-28', true],
    ['2025 era', false],
  ])('a replayed answer is the SDK answer with the new id (%s)', async (_l, modern) => {
    const access = await h.token({ upstreamToken: await h.credential() });
    const first = await rawList(access, 41, modern);
    const second = await rawList(access, 'req-42', modern);
    const third = await rawList(access, 43, modern);
    expect(second.type).toBe(first.type);
    expect(second.text).toBe(first.text.replace('"id":41', '"id":"req-42"'));
    expect(third.text).toBe(first.text.replace('"id":41', '"id":43'));
    // Both eras get JSON: the 2025 era's event stream of one message is answered as that message.
    expect(first.type).toBe('application/json');
    const json = JSON.parse(third.text) as Json;
    expect(json.id).toBe(43);
    expect(json.result.tools).toHaveLength(ALL_TOOLS.length);
  });

  it('a replayed answer is sent in the coding the client takes, the same answer once decoded (compressed once, kept)', async () => {
    const access = await h.token({ upstreamToken: await h.credential() });
    const meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    // undici's request leaves the bytes as sent.
    const list = async (id: number, acceptEncoding: string | null, modern = true) => {
      const res = await request(h.mcpUrl, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${access}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...(acceptEncoding === null ? {} : { 'accept-encoding': acceptEncoding }),
          ...(modern ? { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' } : {}),
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id,
          method: 'tools/list',
          params: modern ? { _meta: meta } : {},
        }),
      });
      const body = Buffer.from(await res.body.arrayBuffer());
      const coding = res.headers['content-encoding'];
      const text =
        coding === 'gzip'
          ? gunzipSync(body).toString()
          : coding === 'br'
            ? brotliDecompressSync(body).toString()
            : body.toString();
      return {
        coding,
        vary: res.headers.vary,
        length: res.headers['content-length'],
        text,
        bytes: body.length,
      };
    };
    const first = await list(1, null);
    for (const id of [2, 3, 2]) {
      const plain = await list(id, null);
      expect(plain.coding).toBeUndefined();
      expect(plain.text).toBe(first.text.replace('"id":1}', `"id":${id}}`));
      for (const [accept, coding] of [
        ['gzip, deflate', 'gzip'],
        ['br', 'br'],
        ['gzip;q=0.5, br;q=1', 'br'],
        ['br;q=0, gzip', 'gzip'],
      ] as const) {
        const coded = await list(id, accept);
        expect(coded.coding, accept).toBe(coding);
        expect(coded.vary, accept).toMatch(/Accept-Encoding/i);
        expect(coded.text, accept).toBe(plain.text);
        expect(Number(coded.length), accept).toBe(coded.bytes);
      }
    }
    // The 2025 era's answer, which the SDK writes as an event stream of one message, is that message
    // as JSON (the 2025 transport lets the server answer either way), so it is compressed too.
    const legacyPlain = await list(4, null, false);
    expect(legacyPlain.coding).toBeUndefined();
    expect(JSON.parse(legacyPlain.text)).toMatchObject({ jsonrpc: '2.0', id: 4 });
    for (const id of [4, 5]) {
      const coded = await list(id, 'gzip, br', false);
      expect(coded.coding).toBe('br');
      expect(coded.text).toBe(legacyPlain.text.replace('"id":4}', `"id":${id}}`));
      expect(coded.bytes).toBeLessThan(legacyPlain.text.length / 5);
    }
  });

  it('scope sets never share an answer', async () => {
    const upstreamToken = await h.credential();
    const all = await h.token({ upstreamToken });
    const readOnly = await h.token({
      upstreamToken,
      scopes: ['searches:read', 'agent:read', 'account:read'],
    });
    const accountOnly = await h.token({ upstreamToken, scopes: ['account:read', 'account:write'] });
    for (const connect of [connectV2, connectV1]) {
      for (const [token, count] of [
        [all, ALL_TOOLS.length],
        [readOnly, READ_TOOLS],
        [accountOnly, ACCOUNT_TOOLS],
        [all, ALL_TOOLS.length],
        [readOnly, READ_TOOLS],
      ] as const) {
        const client = await connect(h.mcpUrl, token);
        expect((await client.listTools()).tools).toHaveLength(count);
        await client.close();
      }
    }
  });
});
