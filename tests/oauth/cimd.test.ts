import type { ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchClientMetadataDocument } from '../../src/oauth/clients/cimd-fetch.js';
import { DOCUMENT_FETCHES_PER_IP } from '../../src/oauth/clients/document-fetches.js';
import { findClient } from '../../src/oauth/clients/repository.js';
import {
  authorizeUrl,
  browserGet,
  callbackParams,
  consent,
  exchangeCode,
  mcpStatus,
  pkce,
  type SignedInUser,
  signedInUser,
  tokenRequest,
} from '../helpers/oauth-http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { selfSignedCertificate } from '../helpers/tls.js';

/**
 * Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document) served by a loopback
 * HTTPS server with a certificate made here. `dev` allows private hosts (CIMD_ALLOW_PRIVATE_HOSTS),
 * `prod` does not; both trust the test certificate.
 */

type Handler = (res: ServerResponse) => void;
const routes = new Map<string, Handler>();
const hits = new Map<string, number>();
let docs: Server;
let origin = '';
let ca = '';
let dev: TestServer;
let prod: TestServer;
let user: SignedInUser;
let prodUser: SignedInUser;

function url(path: string) {
  return `${origin}${path}`;
}

function json(body: unknown, headers: Record<string, string> = {}): Handler {
  return (res) => {
    res.writeHead(200, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };
}

/** A valid document for `path`, with overrides. */
function doc(path: string, extra: Record<string, unknown> = {}) {
  return {
    client_id: url(path),
    client_name: 'Metadata Client',
    redirect_uris: ['http://localhost:3000/callback'],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    ...extra,
  };
}

function serve(path: string, handler: Handler) {
  routes.set(path, handler);
  hits.set(path, 0);
}

beforeAll(async () => {
  const tls = selfSignedCertificate();
  ca = tls.cert;
  docs = createServer({ key: tls.key, cert: ca }, (req, res) => {
    const path = new URL(req.url ?? '/', 'https://x').pathname;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const handler = routes.get(path);
    if (handler) handler(res);
    else {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise<void>((resolve) => docs.listen(0, '127.0.0.1', resolve));
  origin = `https://localhost:${(docs.address() as AddressInfo).port}`;
  dev = await startTestServer({ env: { CIMD_ALLOW_PRIVATE_HOSTS: 'true', TRUST_PROXY: 'true' }, cimdCa: ca });
  prod = await startTestServer({ cimdCa: ca });
  user = await signedInUser(dev);
  prodUser = await signedInUser(prod);
});

afterAll(async () => {
  docs?.closeAllConnections();
  await new Promise((resolve) => docs?.close(resolve));
  await dev?.close();
  await prod?.close();
});

async function storedClient(server: TestServer, clientId: string) {
  return (await server.sql.get('SELECT * FROM oauth_clients WHERE id = ?', clientId)) as
    | { expires_at: number; kind: string }
    | undefined;
}

async function codesFor(server: TestServer, clientId: string): Promise<number> {
  return (
    (await server.sql.get('SELECT count(*) AS n FROM oauth_codes WHERE client_id = ?', clientId)) as {
      n: number;
    }
  ).n;
}

/** The authorize request for a CIMD client is refused with a page, nothing stored or issued. */
async function expectRefused(
  path: string,
  reason: RegExp,
  server: TestServer = dev,
  who: SignedInUser = user,
) {
  const clientId = url(path);
  const res = await browserGet(authorizeUrl(server, { clientId, challenge: pkce().challenge }), who.cookie);
  expect(res.status).toBe(400);
  expect(res.headers.get('location')).toBeNull();
  expect(res.headers.get('content-type')).toMatch(/^text\/html/);
  const html = await res.text();
  expect(html).toContain('This app cannot connect');
  expect(html).toMatch(reason);
  expect(await storedClient(server, clientId)).toBeUndefined();
  expect(await codesFor(server, clientId)).toBe(0);
}

describe('a metadata document client, end to end (CIMD draft §3–§4)', () => {
  it('CIMD §3: an https client_id URL works through authorize, consent, token, /mcp and refresh', async () => {
    serve('/client.json', json(doc('/client.json'), { 'cache-control': 'max-age=600' }));
    const clientId = url('/client.json');
    const p = pkce();
    const { page, html, decision } = await consent(
      dev,
      user,
      authorizeUrl(dev, { clientId, challenge: p.challenge }),
    );
    expect(page.status).toBe(200);
    expect(html).toContain('Metadata Client');
    // CIMD §6: the consent page names the host that vouches for the client, no "unverified" warning.
    expect(html).toContain(new URL(origin).host);
    expect(html).not.toMatch(/has not been verified/);
    const params = callbackParams(decision as Response);
    expect(params.get('iss')).toBe(dev.config.publicUrl);
    const tokens = await exchangeCode(dev, {
      clientId,
      code: params.get('code') as string,
      verifier: p.verifier,
    });
    expect(tokens.status).toBe(200);
    expect(await mcpStatus(dev, tokens.body.access_token as string)).toBe(200);
    expect((await storedClient(dev, clientId))?.kind).toBe('cimd');
    // The token endpoint uses the stored copy: the client's site being down does not break refreshes.
    serve('/client.json', (res) => {
      res.writeHead(500);
      res.end();
    });
    const refreshed = await tokenRequest(dev, {
      grant_type: 'refresh_token',
      refresh_token: tokens.body.refresh_token as string,
      client_id: clientId,
    });
    expect(refreshed.status).toBe(200);
  });

  it('a document stored again replaces what the token endpoint kept of the client (the store’s client cache is invalidated)', async () => {
    serve('/kept.json', json(doc('/kept.json', { client_name: 'First' }), { 'cache-control': 'max-age=60' }));
    const clientId = url('/kept.json');
    const atToken = { cimd: { allowPrivateHosts: true, ca }, refreshStaleDocument: false };
    const atAuthorize = { ...atToken, refreshStaleDocument: true };
    // The clock is passed in, not slept: stored at t0 for 60 s; the token endpoint keeps the row at 59 s.
    const t0 = Date.now();
    expect((await findClient(dev.db, clientId, atAuthorize, t0))?.clientName).toBe('First');
    expect((await findClient(dev.db, clientId, atToken, t0 + 59_000))?.clientName).toBe('First');
    serve(
      '/kept.json',
      json(doc('/kept.json', { client_name: 'Second' }), { 'cache-control': 'max-age=600' }),
    );
    // At 61 s the stored copy is stale: /authorize stores the document again, and the row the token
    // endpoint kept two seconds ago (its cache keeps rows a minute) must not outlive it.
    expect((await findClient(dev.db, clientId, atAuthorize, t0 + 61_000))?.clientName).toBe('Second');
    expect((await findClient(dev.db, clientId, atToken, t0 + 61_000))?.clientName).toBe('Second');
  });

  it('CIMD §4.3 (caching): a second authorize within max-age does not fetch the document again', async () => {
    serve('/cached.json', json(doc('/cached.json'), { 'cache-control': 'public, max-age=600' }));
    const clientId = url('/cached.json');
    for (let i = 0; i < 2; i++) {
      const res = await browserGet(authorizeUrl(dev, { clientId, challenge: pkce().challenge }), user.cookie);
      expect(res.status).toBe(200);
    }
    expect(hits.get('/cached.json')).toBe(1);
    const row = await storedClient(dev, clientId);
    expect((row?.expires_at ?? 0) - Date.now()).toBeGreaterThan(590_000);
    expect((row?.expires_at ?? 0) - Date.now()).toBeLessThanOrEqual(600_000);
    // Once the cached copy is stale, the next authorize fetches it again.
    await dev.sql.run('UPDATE oauth_clients SET expires_at = ? WHERE id = ?', Date.now() - 1, clientId);
    const again = await browserGet(authorizeUrl(dev, { clientId, challenge: pkce().challenge }), user.cookie);
    expect(again.status).toBe(200);
    expect(hits.get('/cached.json')).toBe(2);
  });

  it('a metadata-document fetch limit holds under concurrency: 40 parallel authorizations naming new documents from one address fetch at most the limit, the rest 429', async () => {
    const paths = Array.from({ length: DOCUMENT_FETCHES_PER_IP.limit + 10 }, (_, i) => `/flood-${i}.json`);
    for (const path of paths) serve(path, json(doc(path)));
    const answers = await Promise.all(
      paths.map((path) =>
        fetch(authorizeUrl(dev, { clientId: url(path), challenge: pkce().challenge }), {
          redirect: 'manual',
          headers: { cookie: user.cookie, 'x-forwarded-for': '203.0.113.50' },
        }),
      ),
    );
    const refused = answers.filter((res) => res.status === 429);
    expect(refused).toHaveLength(10);
    expect(Number(refused[0]?.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await refused[0]?.text()).toContain('Too many app metadata documents');
    expect(paths.reduce((sum, path) => sum + (hits.get(path) ?? 0), 0)).toBe(DOCUMENT_FETCHES_PER_IP.limit);
    // Another address has its own budget.
    const other = await fetch(
      authorizeUrl(dev, { clientId: url(paths[0] as string), challenge: pkce().challenge }),
      {
        redirect: 'manual',
        headers: { cookie: user.cookie, 'x-forwarded-for': '203.0.113.51' },
      },
    );
    expect(other.status).not.toBe(429);
  });

  it('parallel authorizations naming one new document fetch it once', async () => {
    serve('/together.json', json(doc('/together.json')));
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        browserGet(
          authorizeUrl(dev, { clientId: url('/together.json'), challenge: pkce().challenge }),
          user.cookie,
        ),
      ),
    );
    expect(answers.map((res) => res.status)).toEqual(Array(20).fill(200));
    expect(hits.get('/together.json')).toBe(1);
  });

  it('CIMD §4 / RFC 9110 §15.4: a redirect to another https document is followed (and re-checked)', async () => {
    serve('/moved.json', (res) => {
      res.writeHead(302, { location: '/moved-target.json' });
      res.end();
    });
    serve('/moved-target.json', json(doc('/moved.json')));
    const res = await browserGet(
      authorizeUrl(dev, { clientId: url('/moved.json'), challenge: pkce().challenge }),
      user.cookie,
    );
    expect(res.status).toBe(200);
    expect(hits.get('/moved-target.json')).toBe(1);
  });
});

describe('documents that are refused, with a clear page and nothing issued (CIMD draft §4, §8)', () => {
  it('CIMD §4.1: a document whose client_id differs from its URL', async () => {
    serve('/mismatch.json', json(doc('/mismatch.json', { client_id: url('/other.json') })));
    await expectRefused('/mismatch.json', /different client_id/);
  });

  it('CIMD §4.1: a document containing a client_secret', async () => {
    serve('/secret.json', json(doc('/secret.json', { client_secret: 'shh' })));
    await expectRefused('/secret.json', /must not contain a client_secret/);
  });

  it('CIMD §4.1: a document asking for a secret-based auth method', async () => {
    serve('/basic.json', json(doc('/basic.json', { token_endpoint_auth_method: 'client_secret_basic' })));
    await expectRefused('/basic.json', /token_endpoint_auth_method/);
  });

  it('CIMD §4: an oversize document (> 5 KB), with Content-Length', async () => {
    serve('/big.json', json(doc('/big.json', { padding: 'x'.repeat(6 * 1024) })));
    await expectRefused('/big.json', /larger than 5120 bytes/);
  });

  it('CIMD §4: an oversize document (> 5 KB), streamed without Content-Length', async () => {
    serve('/big-chunked.json', (res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const body = JSON.stringify(doc('/big-chunked.json', { padding: 'x'.repeat(8 * 1024) }));
      for (let i = 0; i < body.length; i += 1024) res.write(body.slice(i, i + 1024));
      res.end();
    });
    await expectRefused('/big-chunked.json', /larger than 5120 bytes/);
  });

  it('CIMD §4: a document that is not JSON', async () => {
    serve('/html.json', (res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!doctype html><p>hello</p>');
    });
    await expectRefused('/html.json', /not valid JSON/);
  });

  it('CIMD §4: a JSON value that is not an object', async () => {
    serve('/array.json', json(['http://localhost:3000/callback']));
    await expectRefused('/array.json', /not a JSON object/);
  });

  it('CIMD §4: a document with an invalid redirect URI (RFC 7591 §2 rules apply)', async () => {
    serve('/badredirect.json', json(doc('/badredirect.json', { redirect_uris: ['javascript:alert(1)'] })));
    await expectRefused('/badredirect.json', /forbidden scheme/);
  });

  it('RFC 8252 §7.1: a document with a private-use scheme that is not reverse-domain (search-ms:) is refused', async () => {
    serve('/searchms.json', json(doc('/searchms.json', { redirect_uris: ['search-ms:query=x'] })));
    await expectRefused('/searchms.json', /operating-system handler/);
    serve('/mailto.json', json(doc('/mailto.json', { redirect_uris: ['mailto:x@example.com'] })));
    await expectRefused('/mailto.json', /reverse-domain/);
  });

  it('RFC 7591 §3.2.1: a document whose client_uri is http on localhost is used, without that URL', async () => {
    serve('/cosmetic.json', json(doc('/cosmetic.json', { client_uri: 'http://localhost:8000' })));
    const res = await browserGet(
      authorizeUrl(dev, { clientId: url('/cosmetic.json'), challenge: pkce().challenge }),
      user.cookie,
    );
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('Allow');
    const row = (await dev.sql.get(
      'SELECT client_uri FROM oauth_clients WHERE id = ?',
      url('/cosmetic.json'),
    )) as { client_uri: string | null };
    expect(row.client_uri).toBeNull();
  });

  it('Open redirect (RFC 9700 §4.11.2): a metadata-document client’s error is shown, not redirected, before anyone signed in', async () => {
    serve('/stranger.json', json(doc('/stranger.json', { redirect_uris: ['https://evil.example/landing'] })));
    const res = await browserGet(
      authorizeUrl(dev, {
        clientId: url('/stranger.json'),
        redirectUri: 'https://evil.example/landing',
        extra: { prompt: 'none' },
        challenge: pkce().challenge,
      }),
    );
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(await res.text()).toMatch(/cannot be accepted/);
  });

  it('CIMD §4: a URL that answers 404', async () => {
    await expectRefused('/missing.json', /HTTP 404/);
  });

  it('CIMD §4 / RFC 9700 §4.11 (open redirect): a redirect to a non-https URL', async () => {
    serve('/to-http.json', (res) => {
      res.writeHead(301, { location: `http://localhost:${new URL(origin).port}/plain.json` });
      res.end();
    });
    await expectRefused('/to-http.json', /must be served over https/);
  });

  it('CIMD §4: a redirect loop (more than 3 redirects)', async () => {
    serve('/loop.json', (res) => {
      res.writeHead(302, { location: '/loop.json' });
      res.end();
    });
    await expectRefused('/loop.json', /more than 3 redirects/);
    expect(hits.get('/loop.json')).toBe(4);
  });

  it('CIMD §4: a document slower than the 5 s deadline', async () => {
    serve('/slow.json', (res) => {
      const timer = setTimeout(() => json(doc('/slow.json'))(res), 8_000);
      res.on('close', () => clearTimeout(timer));
    });
    const started = Date.now();
    await expectRefused('/slow.json', /took too long/);
    expect(Date.now() - started).toBeLessThan(7_500);
  }, 20_000);

  it('CIMD §4: the fetch deadline covers the whole exchange (a short timeout, direct call)', async () => {
    serve('/trickle.json', (res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const timer = setInterval(() => res.write(' '), 50);
      res.on('close', () => clearInterval(timer));
    });
    await expect(
      fetchClientMetadataDocument(url('/trickle.json'), { allowPrivateHosts: true, ca, timeoutMs: 400 }),
    ).rejects.toThrow(/took too long/);
  });
});

describe('SSRF guard (CIMD draft §8, RFC 9700 §4.x)', () => {
  it('CIMD §8: without the development setting a client_id on localhost is refused (points inside the network), nothing is fetched', async () => {
    serve('/private.json', json(doc('/private.json')));
    await expectRefused('/private.json', /not public/, prod, prodUser);
    expect(hits.get('/private.json')).toBe(0);
  });

  it('CIMD §8: without the development setting a literal private IP client_id is refused before connecting', async () => {
    const literal = `https://127.0.0.1:${new URL(origin).port}/literal.json`;
    serve('/literal.json', json({ ...doc('/literal.json'), client_id: literal }));
    const res = await browserGet(
      authorizeUrl(prod, { clientId: literal, challenge: pkce().challenge }),
      prodUser.cookie,
    );
    expect(res.status).toBe(400);
    expect(await res.text()).toMatch(/not a public address/);
    expect(hits.get('/literal.json')).toBe(0);
  });

  it('CIMD §8: without the development setting a redirect towards a private URL is refused, nothing is fetched from it', async () => {
    // Every hop goes through the same guarded fetch; here the first hop is already private, so the
    // guard stops the chain before any request leaves (a public first hop cannot be made in a test).
    serve('/redirector.json', (res) => {
      res.writeHead(302, { location: `https://127.0.0.1:${new URL(origin).port}/private-target.json` });
      res.end();
    });
    serve('/private-target.json', json(doc('/redirector.json')));
    await expectRefused('/redirector.json', /not public/, prod, prodUser);
    expect(hits.get('/redirector.json')).toBe(0);
    expect(hits.get('/private-target.json')).toBe(0);
  });

  it('CIMD §3: an http:// client_id is not a metadata document URL → unknown client, nothing fetched', async () => {
    const clientId = `http://localhost:${new URL(origin).port}/client.json`;
    const before = hits.get('/client.json');
    const res = await browserGet(authorizeUrl(dev, { clientId, challenge: pkce().challenge }), user.cookie);
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(hits.get('/client.json')).toBe(before);
  });

  it('CIMD §3: a client_id URL with dot segments is not a metadata document URL, nothing fetched', async () => {
    for (const path of ['/x/../dots.json', '/./dots.json', '/x/%2e%2e/dots.json']) {
      const clientId = `${origin}${path}`;
      serve('/dots.json', json({ ...doc('/dots.json'), client_id: clientId }));
      const res = await browserGet(authorizeUrl(dev, { clientId, challenge: pkce().challenge }), user.cookie);
      expect(res.status, path).toBe(400);
      expect(hits.get('/dots.json'), path).toBe(0);
      expect(await storedClient(dev, clientId)).toBeUndefined();
    }
  });

  it('CIMD §3: a client_id URL with a fragment or credentials is not a metadata document URL', async () => {
    for (const clientId of [
      `${url('/client.json')}#frag`,
      `https://user:pw@localhost:${new URL(origin).port}/client.json`,
    ]) {
      const res = await browserGet(authorizeUrl(dev, { clientId, challenge: pkce().challenge }), user.cookie);
      expect(res.status, clientId).toBe(400);
    }
  });
});
