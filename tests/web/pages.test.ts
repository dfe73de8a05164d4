import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPE_DESCRIPTIONS } from '../../src/oauth/scopes.js';
import { type SandboxServer, startSandboxServer } from '../../src/sandbox/server.js';
import {
  authorizeUrl,
  browserGet,
  fullGrant,
  pkce,
  registerClient,
  signedInUser,
} from '../helpers/oauth-http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { FormClient } from './form-client.js';

/** The account-side pages over HTTP: what each shows to whom (the browser tests check layout). */
let sandbox: SandboxServer;
let server: TestServer;
beforeAll(async () => {
  sandbox = await startSandboxServer({ port: 0, speed: 'instant' });
  server = await startTestServer({ upstream: { searchUrl: sandbox.searchUrl, agentUrl: sandbox.agentUrl } });
});
afterAll(async () => {
  await server?.close();
  await sandbox?.close();
});

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
const PASSWORD = 'violet tractor umbrella';
let n = 0;
const freshEmail = () => `pages${++n}-${Date.now()}@example.com`;

describe('unknown paths', () => {
  it('get an HTML page with a way home in a browser', async () => {
    const res = await fetch(`${server.url}/no/such/page`, { headers: { accept: BROWSER_ACCEPT } });
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await res.text();
    expect(html).toContain('<h1>Page not found</h1>');
    expect(html).toContain('href="/"');
    // With no Accept at all (curl, fetch's */*) the page too: only JSON is asked for explicitly.
    expect((await fetch(`${server.url}/no/such/page`)).headers.get('content-type')).toMatch(/^text\/html/);
  });

  it('stay JSON for API paths and for clients that ask for JSON', async () => {
    for (const [path, accept] of [
      ['/nope', 'application/json'],
      ['/mcp/x', BROWSER_ACCEPT],
      ['/.well-known/nope', BROWSER_ACCEPT],
      ['/token/x', BROWSER_ACCEPT],
    ] as const) {
      const res = await fetch(`${server.url}${path}`, { headers: { accept } });
      expect(res.status, path).toBe(404);
      expect(await res.json(), path).toEqual({
        error: 'not_found',
        message: `Nothing is served at ${path}.`,
      });
    }
  });
});

describe('home', () => {
  it('signed out: the MCP URL, sign-in and create-account, no copy of anyone’s data', async () => {
    const res = await fetch(`${server.url}/`);
    const html = await res.text();
    expect(html).toContain(`<code id="mcp-url">${server.url}/mcp</code>`);
    expect(html).toContain('href="/sign-up"');
    expect(html).not.toContain('Your workspaces');
  });

  it('signed in: the MCP URL with a copy button, workspaces, connected apps, and no "Create account"', async () => {
    const client = new FormClient(server.url);
    const email = freshEmail();
    await client.signUp(email, PASSWORD);
    const res = await client.get('/');
    expect(res.headers.get('cache-control')).toBe('no-store');
    const html = client.lastHtml;
    expect(html).toContain(`<code id="mcp-url">${server.url}/mcp</code>`);
    expect(html).toMatch(/<button[^>]*data-copy="mcp-url"[^>]*hidden/);
    expect(html).toContain('<script src="/assets/copy.js" defer=""></script>');
    expect(html).toContain('Your workspaces');
    expect(html).toContain('Connected apps');
    expect(html).toContain('href="/connect"');
    expect(html).toContain(email);
    expect(html).toContain('Link your API credentials');
    expect(html).not.toContain('Create account');
    expect(html).not.toContain('Create an account');
  });

  it('serves the copy script from our own origin, as JavaScript', async () => {
    const res = await fetch(`${server.url}/assets/copy.js`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await res.text()).toContain('navigator.clipboard');
  });
});

describe('sign-in and sign-up keep next', () => {
  it('in the header links and the page links', async () => {
    const next = '/account/credentials?workspace=x';
    const query = new URLSearchParams({ next }).toString();
    for (const path of ['/sign-in', '/sign-up']) {
      const html = await (await fetch(`${server.url}${path}?${query}`)).text();
      const header = /<header[\s\S]*<\/header>/.exec(html)?.[0] ?? '';
      expect(header, path).toContain(`href="/sign-in?${query}"`);
      expect(header, path).toContain(`href="/sign-up?${query}"`);
    }
  });

  it('names the app that is asking when sign-in interrupts an authorization', async () => {
    const client = await registerClient(server, { client_name: 'Research Helper' });
    const { challenge } = pkce();
    const start = await browserGet(authorizeUrl(server, { clientId: client.client_id, challenge }));
    expect(start.status).toBe(303);
    const signIn = await fetch(new URL(start.headers.get('location') ?? '', server.url));
    const html = await signIn.text();
    expect(html).toContain('<strong>Research Helper</strong> is asking to connect');
    expect(html).toContain('the name was given by the app itself');
    // The same on the sign-up page the link leads to.
    const signUpHref = /New here\? <a href="([^"]+)"/.exec(html)?.[1]?.replaceAll('&amp;', '&') ?? '';
    const signUp = await (await fetch(new URL(signUpHref, server.url))).text();
    expect(signUp).toContain('<strong>Research Helper</strong> is asking to connect');
  });

  it('names no app for a next that is not an authorization, or an unknown client', async () => {
    for (const next of ['/account', '/authorize?client_id=sim_client_unknown']) {
      const html = await (await fetch(`${server.url}/sign-in?next=${encodeURIComponent(next)}`)).text();
      expect(html, next).not.toContain('is asking to connect');
    }
  });
});

describe('credentials page', () => {
  it('says which app is waiting when an authorization sent the person to link credentials', async () => {
    const user = await signedInUser(server, { upstreamToken: null });
    const client = await registerClient(server, { client_name: 'Waiting App' });
    const { challenge } = pkce();
    const start = await browserGet(
      authorizeUrl(server, { clientId: client.client_id, challenge }),
      user.cookie,
    );
    expect(start.headers.get('location')).toMatch(/^\/account\/credentials\?next=/);
    const page = await browserGet(new URL(start.headers.get('location') ?? '', server.url).href, user.cookie);
    expect(await page.text()).toContain('<strong>Waiting App</strong> is waiting to connect');
  });

  it('shows the MCP URL and the connect page once credentials are linked', async () => {
    const client = new FormClient(server.url);
    await client.signUp(freshEmail(), PASSWORD);
    await client.get('/account/credentials');
    const saved = await client.post('/account/credentials', { action: 'sandbox', workspace: '' });
    expect(saved.status).toBe(303);
    await client.get(saved.headers.get('location') ?? '');
    expect(client.lastHtml).toContain('Next: add this server to your AI client');
    expect(client.lastHtml).toContain(`<code id="next-mcp-url">${server.url}/mcp</code>`);
    expect(client.lastHtml).toContain('href="/connect"');
    // The user id is explained in words, and the header that carries it is not named.
    expect(client.lastHtml).toContain('files your searches, runs and usage under');
    expect(client.lastHtml).not.toContain('X-SERVICE-USER-ID');
  });
});

describe('connect page', () => {
  it('shows every client’s steps with this server’s URL, to anyone', async () => {
    const html = await (await fetch(`${server.url}/connect`)).text();
    const url = `${server.url}/mcp`;
    expect(html).toContain(`<code id="mcp-url">${url}</code>`);
    expect(html).toContain(`claude mcp add --transport http social-intel ${url}`);
    expect(html).toContain('code --add-mcp');
    expect(html).toContain(
      'href="cursor://anysphere.cursor-deeplink/mcp/install?name=social-intel&amp;config=',
    );
    expect(html).toContain(`npx -y mcp-remote ${url}`);
    // The ways in without signing in: the local server and the upstream headers.
    expect(html).toContain('npx -y social-intel-mcp stdio');
    expect(html).toContain('social-intel-mcp.mcpb');
    expect(html).toContain(`claude mcp add --transport http social-intel ${url} --header`);
    expect(html).toContain('X-SERVICE-USER-ID');
    for (const id of ['claude', 'claude-code', 'chatgpt', 'vscode', 'cursor', 'other', 'local', 'headers']) {
      expect(html).toContain(`id="${id}"`);
      expect(html).toContain(`href="#${id}"`);
    }
    expect(html).toContain('href="/sign-up?next=%2Fconnect"');
  });

  it('shows how to use an access token, and builds the URL of a chosen set of tools', async () => {
    const url = `${server.url}/mcp`;
    const html = await (await fetch(`${server.url}/connect`)).text();
    for (const id of ['access-tokens', 'toolsets']) {
      expect(html).toContain(`id="${id}"`);
      expect(html).toContain(`href="#${id}"`);
    }
    expect(html).toContain('Authorization: Bearer $SOCIAL_INTEL_TOKEN');
    expect(html).not.toContain('id="toolsets-url"');
    const built = await (
      await fetch(`${server.url}/connect?toolset=searches&toolset=posts&readonly=on`)
    ).text();
    expect(built).toContain(`<code id="toolsets-url">${url}/readonly?toolsets=searches,posts</code>`);
    const every = await (
      await fetch(
        `${server.url}/connect?${['searches', 'posts', 'experts', 'agent_runs', 'schedules', 'account'].map((t) => `toolset=${t}`).join('&')}`,
      )
    ).text();
    expect(every).toContain(`<code id="toolsets-url">${url}</code>`);
    expect(await (await fetch(`${server.url}/connect?readonly=on`)).text()).toContain(
      'Tick at least one toolset',
    );
  });
});

describe('account page: connected apps', () => {
  it('shows what each app may do now (granted and within the member’s ceiling) in words, never scope codes', async () => {
    const user = await signedInUser(server);
    await fullGrant(server, user, { scope: 'searches:read searches:write agent:read' });
    // An admin's ceiling for this member (the same column the team pages set).
    const { workspaceMembers } = server.db.t;
    await server.db.orm
      .update(workspaceMembers)
      .set({ maxScopes: 'searches:read agent:read' })
      .where(
        and(eq(workspaceMembers.workspaceId, user.workspaceId), eq(workspaceMembers.userId, user.userId)),
      );
    const html = await (await browserGet(`${server.url}/account`, user.cookie)).text();
    const apps = /<section aria-labelledby="apps-heading">[\s\S]*?<\/section>/.exec(html)?.[0] ?? '';
    expect(apps).toContain('Test Client');
    expect(apps).toContain(`<li>${SCOPE_DESCRIPTIONS['searches:read']}</li>`);
    expect(apps).toContain(`<li>${SCOPE_DESCRIPTIONS['agent:read']}</li>`);
    expect(apps).toContain(`<li class="perm-off">${SCOPE_DESCRIPTIONS['searches:write']}</li>`);
    expect(apps).not.toContain(`<li>${SCOPE_DESCRIPTIONS['searches:write']}</li>`);
    expect(apps).not.toMatch(/(searches|agent|account):(read|write)/);
    // The API user id is there, explained.
    expect(html).toContain('The API user ID is the name the Social Intelligence API files');
  });
});
