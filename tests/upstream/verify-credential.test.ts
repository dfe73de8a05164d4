import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SandboxServer, startSandboxServer } from '../../src/sandbox/server.js';
import { requestSandboxCredential, verifyUpstreamToken } from '../../src/upstream/verify-credential.js';

let sandbox: SandboxServer;
beforeAll(async () => {
  sandbox = await startSandboxServer({ port: 0, speed: 'instant' });
});
afterAll(() => sandbox.close());

const header = 'X-SERVICE-TOKEN';

describe('verifyUpstreamToken against the sandbox', () => {
  it('accepts a real credential and rejects an unknown one', async () => {
    expect(
      await verifyUpstreamToken({ searchUrl: sandbox.searchUrl, tokenHeader: header, token: sandbox.token }),
    ).toEqual({
      status: 'valid',
    });
    expect(
      await verifyUpstreamToken({
        searchUrl: sandbox.searchUrl,
        tokenHeader: header,
        token: 'not-a-real-token',
      }),
    ).toEqual({ status: 'rejected', httpStatus: 401 });
  });

  it('creates sandbox credentials that then verify', async () => {
    const token = await requestSandboxCredential(sandbox.searchUrl);
    expect(token).toEqual(expect.any(String));
    expect(token).not.toBe(sandbox.token);
    expect(
      (await verifyUpstreamToken({ searchUrl: sandbox.searchUrl, tokenHeader: header, token: token ?? '' }))
        .status,
    ).toBe('valid');
  });
});

describe('verifyUpstreamToken when the upstream cannot answer', () => {
  it('reports a network error, a 5xx and a timeout as unavailable', async () => {
    // A port nothing listens on.
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const deadPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    expect(
      await verifyUpstreamToken({
        searchUrl: `http://127.0.0.1:${deadPort}`,
        tokenHeader: header,
        token: 't',
      }),
    ).toEqual({ status: 'unavailable', reason: 'network_error' });

    const seen: Array<string | undefined> = [];
    const flaky = createServer((req, res) => {
      seen.push(req.headers['x-service-token'] as string | undefined);
      if (req.url === '/slow/api/usage') return; // never answers
      res.writeHead(502).end('bad gateway');
    });
    await new Promise<void>((r) => flaky.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(flaky.address() as AddressInfo).port}`;
    try {
      expect(await verifyUpstreamToken({ searchUrl: base, tokenHeader: header, token: 'tok-1' })).toEqual({
        status: 'unavailable',
        reason: 'http_502',
      });
      expect(
        await verifyUpstreamToken({
          searchUrl: `${base}/slow`,
          tokenHeader: header,
          token: 'tok-2',
          timeoutMs: 200,
        }),
      ).toEqual({ status: 'unavailable', reason: 'timeout' });
      expect(seen).toEqual(['tok-1', 'tok-2']);
    } finally {
      flaky.closeAllConnections();
      await new Promise<void>((r) => flaky.close(() => r()));
    }
  });
});
