import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { and, eq } from 'drizzle-orm';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { first as firstRow, grantSubject } from '../../src/db/store/index.js';
import { ALL_TOOLS } from '../../src/mcp/tools/index.js';
import { startSandboxServer } from '../../src/sandbox/server.js';
import { launchBrowser } from '../helpers/browser.js';
import { completeInBrowser as completeInBrowserAs } from '../helpers/consent-in-browser.js';
import { CallbackServer, MemoryOAuthProvider } from '../helpers/oauth-provider.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { DocumentServer, selfSignedCertificate } from '../helpers/tls.js';

/**
 * The whole OAuth flow with the SDK's own clients (v2, and v1 for the 2025 era) with their OAuth
 * providers and headless Chromium doing the sign-in and consent clicks: discovery, registration (DCR
 * and CIMD), authorize, token, an MCP request, refresh, revoke, and the next MCP request refused.
 */
const EMAIL = 'e2e.person@example.com';
const PASSWORD = 'a long enough passphrase 42';

let sandbox: Awaited<ReturnType<typeof startSandboxServer>>;
let server: TestServer;
let browser: Browser;
let page: Page;
let callback: CallbackServer;
let documents: DocumentServer;

beforeAll(async () => {
  const tls = selfSignedCertificate();
  documents = await new DocumentServer(tls).start();
  sandbox = await startSandboxServer({ port: 0, host: '127.0.0.1', speed: 'instant' });
  server = await startTestServer({
    upstream: { searchUrl: sandbox.searchUrl, agentUrl: sandbox.agentUrl },
    env: { CIMD_ALLOW_PRIVATE_HOSTS: 'true' },
    cimdCa: tls.cert,
  });
  callback = await new CallbackServer().start();
  browser = await launchBrowser();
  page = await (await browser.newContext()).newPage();
});

afterAll(async () => {
  await browser?.close();
  await callback?.close();
  await server?.close();
  await sandbox?.close();
  await documents?.close();
});

/** The person signs in, links the sandbox credentials and allows, in the browser the client opened. */
function completeInBrowser(url: URL): Promise<void> {
  return completeInBrowserAs(
    {
      page,
      callback,
      email: EMAIL,
      password: PASSWORD,
      linkCredentials: (p) => p.getByRole('button', { name: 'Use sandbox credentials' }).click(),
    },
    url,
  );
}

async function grantCount(): Promise<number> {
  return (await server.db.orm.select().from(server.db.t.oauthGrants)).length;
}

/** Ends every access token of the client's grants, as an hour passing would. */
async function expireAccessTokens(clientId: string) {
  for (const grant of await server.db.orm
    .select()
    .from(server.db.t.oauthGrants)
    .where(eq(server.db.t.oauthGrants.clientId, clientId))) {
    await server.db.orm
      .update(server.db.t.oauthTokens)
      .set({ expiresAt: Date.now() - 1000 })
      .where(and(eq(server.db.t.oauthTokens.grantId, grant.id), eq(server.db.t.oauthTokens.kind, 'access')));
    // As every write that changes what the bearer check answers does (its cache hears it).
    await server.db.invalidate(grantSubject(grant.id));
  }
}

async function revoke(clientId: string, token: string) {
  const res = await fetch(`${server.url}/revoke`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token, token_type_hint: 'refresh_token', client_id: clientId }),
  });
  expect(res.status).toBe(200);
}

describe('a new person connects MCP clients', () => {
  it('signs up in the browser, then signs out', async () => {
    await page.goto(`${server.url}/sign-up`);
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForLoadState();
    expect(
      await firstRow(
        server.db.orm.select().from(server.db.t.users).where(eq(server.db.t.users.email, EMAIL)),
      ),
    ).toBeTruthy();
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.waitForLoadState();
  });

  it('v2 client: DCR, sign-in, credentials, consent, token, MCP request, refresh, revoke', async () => {
    const provider = new MemoryOAuthProvider({
      redirectUrl: callback.url,
      clientName: 'E2E v2 client',
      onRedirect: completeInBrowser,
    });
    const mcpUrl = new URL(`${server.url}/mcp`);
    const first = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider });
    const failure = await new Client({ name: 'e2e-v2', version: '1.0.0' })
      .connect(first)
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(Error);
    const params = callback.received.at(-1) as URLSearchParams;
    expect(params.get('iss')).toBe(server.config.publicUrl);
    await first.finishAuth(params);

    const client = new Client({ name: 'e2e-v2', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }));
    expect((await client.listTools()).tools).toHaveLength(ALL_TOOLS.length);
    const clientId = (provider.clientInfo as { client_id: string }).client_id;
    expect(clientId).toMatch(/^sim_client_/);

    // Refresh: the access token runs out; the client refreshes on the 401 and carries on.
    const before = provider.savedTokens?.refresh_token;
    await expireAccessTokens(clientId);
    await client.ping();
    expect(provider.savedTokens?.refresh_token).not.toBe(before);

    // Revoke: the refresh token's whole grant ends; the next request is refused.
    await revoke(clientId, provider.savedTokens?.refresh_token as string);
    const redirectsBefore = provider.redirects.length;
    provider.interactive = false;
    await expect(client.ping()).rejects.toThrow();
    expect(provider.redirects.length).toBeGreaterThan(redirectsBefore);
    await client.close();
  });
});

describe('other clients of the same person', () => {
  it('v1 client (2025 era): DCR, consent in the signed-in browser, token, MCP request', async () => {
    const provider = new MemoryOAuthProvider({
      redirectUrl: callback.url,
      clientName: 'E2E v1 client',
      onRedirect: completeInBrowser,
    });
    const mcpUrl = new URL(`${server.url}/mcp`);
    const grantsBefore = await grantCount();
    const first = new V1Transport(mcpUrl, { authProvider: provider as never });
    const failure = await new V1Client({ name: 'e2e-v1', version: '1.0.0' })
      .connect(first)
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(Error);
    const params = callback.received.at(-1) as URLSearchParams;
    await first.finishAuth(params.get('code') as string);

    const client = new V1Client({ name: 'e2e-v1', version: '1.0.0' });
    await client.connect(new V1Transport(mcpUrl, { authProvider: provider as never }));
    expect((await client.listTools()).tools).toHaveLength(ALL_TOOLS.length);
    // Connecting a second app added a grant and revoked none (docs/oauth.md, Rules worth knowing).
    expect(await grantCount()).toBe(grantsBefore + 1);
    const live = (await server.db.orm.select().from(server.db.t.oauthGrants)).filter(
      (g) => g.revokedAt === null,
    );
    expect(live.length).toBeGreaterThanOrEqual(1);
    await client.close();
  });

  it('v2 client with a Client ID Metadata Document instead of registration', async () => {
    const path = '/oauth/client-metadata.json';
    const clientId = documents.url(path);
    documents.documents.set(path, {
      body: JSON.stringify({
        client_id: clientId,
        client_name: 'E2E CIMD client',
        redirect_uris: [callback.url],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      }),
      headers: { 'cache-control': 'max-age=600' },
    });
    const provider = new MemoryOAuthProvider({
      redirectUrl: callback.url,
      clientName: 'E2E CIMD client',
      clientMetadataUrl: clientId,
      onRedirect: completeInBrowser,
    });
    const mcpUrl = new URL(`${server.url}/mcp`);
    const first = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider });
    const failure = await new Client({ name: 'e2e-cimd', version: '1.0.0' })
      .connect(first)
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(Error);
    // No registration happened: the client_id is the document's URL, fetched by the server.
    expect((provider.clientInfo as { client_id: string }).client_id).toBe(clientId);
    expect(documents.hits.get(path)).toBe(1);
    await first.finishAuth(callback.received.at(-1) as URLSearchParams);

    const client = new Client({ name: 'e2e-cimd', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }));
    const usage = await client.callTool({ name: 'usage', arguments: {} });
    expect(usage.isError).toBeFalsy();
    const grant = await firstRow(
      server.db.orm
        .select()
        .from(server.db.t.oauthGrants)
        .where(eq(server.db.t.oauthGrants.clientId, clientId)),
    );
    expect(grant?.revokedAt).toBeNull();
    await client.close();
  });
});
