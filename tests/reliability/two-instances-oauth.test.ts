import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../src/accounts/users.js';
import { launchBrowser } from '../helpers/browser.js';
import { completeInBrowser as completeInBrowserAs } from '../helpers/consent-in-browser.js';
import { CallbackServer, MemoryOAuthProvider } from '../helpers/oauth-provider.js';
import { pingStatus, startTwoInstances, type TwoInstances, untilRefused } from '../helpers/two-instances.js';

/**
 * The SDK's own client (v2) and its OAuth provider, with headless Chromium doing the person's clicks,
 * through a round-robin balancer in front of two instances on one PostgreSQL database: discovery,
 * registration, sign-in, credentials, consent, token, MCP requests and a refresh, each request on the
 * other instance than the one before.
 */
const EMAIL = 'two.instances@example.com';
const PASSWORD = 'a long enough passphrase 42';

let two: TwoInstances;
let browser: Browser;
let page: Page;
let callback: CallbackServer;

beforeAll(async () => {
  two = await startTwoInstances();
  const created = await createUser(two.store, { email: EMAIL, password: PASSWORD });
  if (!created.ok) throw new Error(created.reason);
  callback = await new CallbackServer().start();
  browser = await launchBrowser();
  page = await (await browser.newContext()).newPage();
});

afterAll(async () => {
  await browser?.close();
  await callback?.close();
  await two?.close();
});

/** The person signs in, types the sandbox credential and allows, in the browser the client opened. */
function completeInBrowser(url: URL): Promise<void> {
  return completeInBrowserAs(
    {
      page,
      callback,
      email: EMAIL,
      password: PASSWORD,
      linkCredentials: async (p) => {
        await p.getByLabel('API token').fill(two.sandbox.token);
        await p.getByLabel('User ID').fill('two-instances');
        await p.getByRole('button', { name: 'Save credentials' }).click();
      },
    },
    url,
  );
}

describe('the OAuth flow over two instances', () => {
  it('connects, calls a tool and refreshes, every step alternating between the instances', async () => {
    const provider = new MemoryOAuthProvider({
      redirectUrl: callback.url,
      clientName: 'Two-instance client',
      onRedirect: completeInBrowser,
    });
    const mcpUrl = new URL(`${two.proxy.url}/mcp`);
    const first = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider });
    const failure = await new Client({ name: 'two', version: '1.0.0' })
      .connect(first)
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(Error);
    const params = callback.received.at(-1) as URLSearchParams;
    expect(params.get('iss')).toBe(two.proxy.url);
    await first.finishAuth(params);

    const client = new Client({ name: 'two', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }));
    expect((await client.listTools()).tools.length).toBeGreaterThan(20);
    const usage = await client.callTool({ name: 'usage', arguments: {} });
    expect(usage.isError).toBeFalsy();

    // The access token runs out: the client refreshes on the 401 and carries on.
    const clientId = (provider.clientInfo as { client_id: string }).client_id;
    await two.sql.run(
      "UPDATE oauth_tokens SET expires_at = ? WHERE kind = 'access' AND grant_id IN (SELECT id FROM oauth_grants WHERE client_id = ?)",
      Date.now() - 1000,
      clientId,
    );
    // Each instance ends its cached lookup when the write's NOTIFY reaches it, milliseconds after the
    // commit: the client's next request waits until both refuse the old token, as they then would.
    const expired = provider.savedTokens?.access_token as string;
    for (const instance of two.instances) await untilRefused(() => pingStatus(instance.url, expired));
    const before = provider.savedTokens?.refresh_token;
    await client.ping();
    expect(provider.savedTokens?.refresh_token).not.toBe(before);
    await client.close();

    // Round robin: each request went to the other instance than the one before.
    const served = two.proxy.served;
    expect(served.length).toBeGreaterThan(10);
    expect(served.every((b, i) => i === 0 || b !== served[i - 1])).toBe(true);
  });
});
