import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, describe, expect, it } from 'vitest';
import { FormClient } from '../helpers/forms.js';
import { fullGrant, type SignedInUser } from '../helpers/oauth-http.js';
import { ROOT, type Spawned, spawnProcess } from '../helpers/process.js';
import type { TestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';

/**
 * `npm start` with no upstream (sandbox mode), as a real process, stopped and started again on the
 * same data folder: a person who linked sandbox credentials keeps working tools, their searches
 * included, and the "Use sandbox credentials" key can run expert search (producer permission).
 */
const dir = tempDir('sim-sandbox-restart-');
const running: Spawned[] = [];
afterAll(() => {
  for (const p of running) p.kill('SIGKILL');
  dir.remove();
});

// The issuer stays the same across restarts (PUBLIC_URL), whatever port each run gets.
const PUBLIC_URL = 'http://localhost:8787';
const SAME_ORIGIN = { origin: null, headers: { 'sec-fetch-site': 'same-origin' } } as const;

async function startServer(): Promise<{ process: Spawned; url: string }> {
  const p = spawnProcess(
    process.execPath,
    [join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs'), 'src/main.ts'],
    {
      DATABASE_PATH: join(dir.path, 'server.db'),
      PORT: '0',
      HOST: '127.0.0.1',
      PUBLIC_URL,
      SANDBOX_SPEED: 'instant',
    },
  );
  running.push(p);
  const line = await p.waitForLine(/"msg":"listening"/, 60_000);
  return { process: p, url: `http://127.0.0.1:${(JSON.parse(line) as { port: number }).port}` };
}

async function stop(p: Spawned) {
  p.kill('SIGTERM');
  expect((await p.exit()).code).toBe(0);
}

/** What the oauth-http helpers read of a server: where to send requests, and the resource. */
function target(url: string): TestServer {
  return { url, config: { resourceUrl: `${PUBLIC_URL}/mcp` } } as unknown as TestServer;
}

async function callTool(url: string, accessToken: string, name: string, args: Record<string, unknown>) {
  const client = new Client({ name: 'sandbox-restart-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${accessToken}` } },
    }),
  );
  try {
    return await client.callTool({ name, arguments: args });
  } finally {
    await client.close();
  }
}

const text = (result: Awaited<ReturnType<typeof callTool>>) =>
  (result.content as Array<{ type: string; text?: string }>).map((c) => c.text ?? '').join('\n');

describe('sandbox mode across a restart', () => {
  it("keeps a linked person's sandbox credentials and searches working", async () => {
    const first = await startServer();
    const browser = new FormClient(first.url);
    await browser.get('/sign-up');
    const signedUp = await browser.post(
      '/sign-up',
      { email: 'restart@example.com', password: 'violet tractor umbrella' },
      SAME_ORIGIN,
    );
    expect(signedUp.status).toBe(303);
    await browser.get('/account/credentials');
    const linked = await browser.post(
      '/account/credentials',
      { action: 'sandbox', workspace: '' },
      SAME_ORIGIN,
    );
    expect(linked.headers.get('location')).toMatch(/done=saved/);

    const user = { cookie: browser.cookieHeader() } as SignedInUser;
    const { accessToken } = await fullGrant(target(first.url), user, {
      scope: 'searches:read searches:write account:read',
    });
    const search = await callTool(first.url, accessToken, 'submit_keyword_search', { query: 'heat pumps' });
    expect(search.isError, text(search)).toBeFalsy();
    const searchId = (search.structuredContent as { search_id?: number; id?: number }).search_id;
    expect(searchId).toEqual(expect.any(Number));
    // The one-click key carries the producer permission: expert search works too.
    const experts = await callTool(first.url, accessToken, 'submit_expert_search', {
      query: 'grid engineers',
    });
    expect(experts.isError, text(experts)).toBeFalsy();
    await stop(first.process);

    // The state file is encrypted: no sandbox token in it.
    expect(readFileSync(join(dir.path, 'sandbox-state.sealed'), 'utf8')).not.toContain('sbx_');

    const second = await startServer();
    const usage = await callTool(second.url, accessToken, 'usage', {});
    expect(usage.isError, text(usage)).toBeFalsy();
    const again = await callTool(second.url, accessToken, 'get_keyword_search', { search_id: searchId });
    expect(again.isError, text(again)).toBeFalsy();
    expect(text(again)).toContain('heat pumps');
    await stop(second.process);
  });
});
