import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SandboxServer, startSandboxServer } from '../../../src/sandbox/server.js';
import { scrubSecrets } from '../../../src/upstream/scrub.js';
import { issueTestToken } from '../../helpers/grants.js';
import { connectV2 } from '../../helpers/harness.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

/**
 * A hostile upstream echoes the request's credential headers in its error `detail`, in every encoding
 * it likes: the tool error a model reads holds none of them, for a member (the workspace's token) and
 * for a client sending the upstream headers itself, and stays short.
 */
function echoForms(token: string, userId: string): string {
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  return [
    `token=${token}`,
    `url=${encodeURIComponent(token)}`,
    `b64=${b64(token)}`,
    `basic=${b64(`${userId}:${token}`)}`,
    `b64url=${Buffer.from(`x${token}`).toString('base64url')}`,
    `user=${userId}`,
  ].join(' ');
}

describe('scrubSecrets', () => {
  it('removes a value in raw, URL-encoded, JSON-escaped and base64 forms at any alignment', () => {
    const secret = 'sbx_Tok+en/with"odd chars==';
    for (const lead of ['', 'a', 'ab', 'abc']) {
      const text = [
        secret,
        encodeURIComponent(secret),
        encodeURIComponent(secret).toLowerCase(),
        JSON.stringify(secret),
        Buffer.from(`${lead}${secret}`).toString('base64'),
        Buffer.from(`${lead}${secret}`).toString('base64url'),
      ].join(' | ');
      const out = scrubSecrets(text, [secret]);
      expect(out).not.toContain('Tok+en');
      expect(out).not.toContain('Tok%2Ben');
      for (const inner of [secret.slice(4, 20)]) expect(out).not.toContain(inner);
      // No base64 run of the secret's own bytes is left (the lead's characters may stay).
      expect(out).not.toContain(Buffer.from(secret).toString('base64').slice(4, 24));
    }
  });
});

describe('a hostile upstream echoing the request headers in its errors', () => {
  let sandbox: SandboxServer;
  let relay: Server;
  let server: TestServer;
  beforeAll(async () => {
    sandbox = await startSandboxServer({ port: 0, host: '127.0.0.1', speed: 'instant' });
    // Everything goes to the sandbox but GET /api/setup, answered 400 with the headers echoed.
    relay = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', async () => {
        const token = String(req.headers['x-service-token'] ?? '');
        const userId = String(req.headers['x-service-user-id'] ?? '');
        if (req.method === 'GET' && req.url?.startsWith('/api/setup')) {
          res.writeHead(400, { 'content-type': 'application/json' });
          res.end(
            JSON.stringify({
              error: `Bad request. You sent ${echoForms(token, userId)} ${'x'.repeat(2000)}`,
            }),
          );
          return;
        }
        const headers = Object.fromEntries(
          Object.entries(req.headers).filter(([k]) => !['host', 'content-length', 'connection'].includes(k)),
        ) as Record<string, string>;
        const answer = await fetch(`${sandbox.searchUrl}${req.url}`, {
          method: req.method ?? 'GET',
          headers,
          ...(chunks.length ? { body: Buffer.concat(chunks) } : {}),
        });
        res.writeHead(answer.status, {
          'content-type': answer.headers.get('content-type') ?? 'application/json',
        });
        res.end(Buffer.from(await answer.arrayBuffer()));
      });
    });
    await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(relay.address() as AddressInfo).port}`;
    server = await startTestServer({ upstream: { searchUrl: url, agentUrl: `${sandbox.searchUrl}/agent` } });
  });
  afterAll(async () => {
    await server?.close();
    await new Promise<void>((resolve) => relay?.close(() => resolve()));
    await sandbox?.close();
  });

  const errorText = async (client: { callTool(p: object): Promise<unknown> }) => {
    const result = (await client.callTool({ name: 'get_integration_setup', arguments: {} })) as {
      isError?: boolean;
      content: { text: string }[];
    };
    expect(result.isError).toBe(true);
    return result.content.map((c) => c.text).join('\n');
  };
  const expectClean = (text: string, token: string, userId: string) => {
    expect(text).toMatch(/Upstream rejected the arguments \(400\)/);
    for (const secret of [token, userId]) {
      for (const form of [
        secret,
        encodeURIComponent(secret),
        Buffer.from(secret).toString('base64').slice(0, 16),
        Buffer.from(`${userId}:${token}`).toString('base64').slice(8, 40),
      ]) {
        expect(text).not.toContain(form);
      }
    }
    expect(text.length).toBeLessThan(600);
  };

  it("a member's model never sees the workspace's token", async () => {
    const token = sandbox.token;
    const userId = 'analyst-echo-1';
    const grant = await issueTestToken(server, { upstreamToken: token, upstreamUserId: userId });
    const client = await connectV2(`${server.url}/mcp`, grant.accessToken);
    expectClean(await errorText(client), token, userId);
    await client.close();
  });

  it('a client sending the upstream headers does not get its own token back', async () => {
    const token = sandbox.token;
    const userId = 'header-echo-user';
    const { Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
    const client = new Client({ name: 'h', version: '1' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
        requestInit: { headers: { 'X-SERVICE-TOKEN': token, 'X-SERVICE-USER-ID': userId } },
      }),
    );
    expectClean(await errorText(client as never), token, userId);
    await client.close();
  });
});
