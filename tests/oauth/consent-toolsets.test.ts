import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { ALL_TOOLS } from '../../src/mcp/tools/index.js';
import { writes } from '../../src/mcp/tools/toolsets.js';
import { oauthFixture } from '../helpers/oauth-fixture.js';
import {
  authorizeUrl,
  browserGet,
  callbackParams,
  consent,
  freshAddress,
  pkce,
  registerClient,
  tokenRequest,
} from '../helpers/oauth-http.js';
import { MemoryOAuthProvider } from '../helpers/oauth-provider.js';

/**
 * The toolsets and read-only switch at consent: a client connecting at a variant of /mcp reads that
 * variant's resource metadata (RFC 9728 §3.1, §3.3), names it in its requests, and the consent page
 * starts from that view; the person's choice is remembered on the connected app (and changeable on the
 * account page), while the token stays bound to the one canonical resource (RFC 8707).
 */
const fx = oauthFixture();

const prm = async (path: string) =>
  (await (await fetch(`${fx.server.url}/.well-known/oauth-protected-resource${path}`)).json()) as {
    resource: string;
  };

describe('the variants of /mcp', () => {
  it('each variant has metadata naming itself as the resource; anything else there names the canonical one', async () => {
    const base = fx.server.config.resourceUrl;
    expect((await prm('/mcp')).resource).toBe(base);
    expect((await prm('/mcp/readonly')).resource).toBe(`${base}/readonly`);
    expect((await prm('/mcp/readonly?toolsets=searches,posts')).resource).toBe(
      `${base}/readonly?toolsets=searches,posts`,
    );
    expect((await prm('/mcp?toolsets=account&readonly=1')).resource).toBe(
      `${base}?toolsets=account&readonly=1`,
    );
    expect((await prm('/mcp?toolsets=account&evil=1')).resource).toBe(base);
  });

  it('the challenge of a request at a variant (by path, query or header) points at that variant’s metadata', async () => {
    const challenge = async (path: string, headers: Record<string, string> = {}) => {
      const res = await fetch(`${fx.server.url}${path}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(res.status).toBe(401);
      return /resource_metadata="([^"]+)"/.exec(res.headers.get('www-authenticate') ?? '')?.[1];
    };
    const metadata = `${fx.server.url}/.well-known/oauth-protected-resource/mcp`;
    expect(await challenge('/mcp')).toBe(metadata);
    expect(await challenge('/mcp/readonly?toolsets=searches,posts')).toBe(
      `${metadata}/readonly?toolsets=searches,posts`,
    );
    expect(await challenge('/mcp', { 'X-MCP-Toolsets': 'account', 'X-MCP-Readonly': 'true' })).toBe(
      `${metadata}?toolsets=account&readonly=1`,
    );
  });

  it('a token request naming a resource that is neither the resource nor a variant is refused (invalid_target)', async () => {
    const client = await registerClient(fx.server, {}, freshAddress());
    const { verifier, challenge } = pkce();
    const { decision } = await consent(
      fx.server,
      fx.user,
      authorizeUrl(fx.server, { clientId: client.client_id, challenge, scope: 'searches:read' }),
    );
    const code = callbackParams(decision as Response).get('code') ?? '';
    const res = await tokenRequest(fx.server, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: 'http://localhost:3000/callback',
      code_verifier: verifier,
      client_id: client.client_id,
      resource: `${fx.server.config.resourceUrl}?other=1`,
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_target');
  });
});

describe('the v2 SDK client at a read-only toolset URL', () => {
  const variant = () => new URL(`${fx.server.url}/mcp?toolsets=searches,posts&readonly=1`);
  let provider: MemoryOAuthProvider;
  let asked: URL;
  let consentHtml = '';
  let callback = new URLSearchParams();

  it('names the variant as its resource; the consent page pre-ticks what it asked for; its tools follow the choice', async () => {
    provider = new MemoryOAuthProvider({
      redirectUrl: 'http://localhost:3000/callback',
      clientName: 'Toolset Client',
      onRedirect: async (url) => {
        asked = url;
        const answered = await consent(fx.server, fx.user, url.href);
        consentHtml = answered.html;
        callback = callbackParams(answered.decision as Response);
      },
    });
    const first = new StreamableHTTPClientTransport(variant(), { authProvider: provider as never });
    await expect(new Client({ name: 'toolsets', version: '1' }).connect(first)).rejects.toThrow();
    expect(asked.searchParams.get('resource')).toBe(
      `${fx.server.config.resourceUrl}?toolsets=searches,posts&readonly=1`,
    );
    expect(consentHtml).toContain('Tools it will see');
    for (const t of ['searches', 'posts'])
      expect(consentHtml).toContain(`name="toolset" value="${t}" checked`);
    for (const t of ['experts', 'agent_runs', 'schedules', 'account'])
      expect(consentHtml).not.toContain(`name="toolset" value="${t}" checked`);
    expect(consentHtml).toMatch(/name="read_only" value="on" checked/);
    await first.finishAuth(callback as never);

    const client = new Client({ name: 'toolsets', version: '1' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(new StreamableHTTPClientTransport(variant(), { authProvider: provider as never }));
    const expected = ALL_TOOLS.filter((t) => ['searches', 'posts'].includes(t.toolset) && !writes(t))
      .map((t) => t.name)
      .sort();
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(expected);
    await client.close();

    // The grant remembers the choice: the same token at the plain URL sees the same tools.
    const token = (provider.savedTokens as { access_token: string }).access_token;
    const plain = await fetch(`${fx.server.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    const listed = ((await plain.json()) as { result: { tools: Array<{ name: string }> } }).result.tools;
    expect(listed.map((t) => t.name).sort()).toEqual(expected);
  });

  it('the account page changes the tools the app sees, from its next request', async () => {
    const { db } = fx.server;
    const clientId = (provider.clientInfo as { client_id: string }).client_id;
    const [grant] = await db.orm
      .select()
      .from(db.t.oauthGrants)
      .where(and(eq(db.t.oauthGrants.clientId, clientId), eq(db.t.oauthGrants.userId, fx.user.userId)));
    expect(grant).toMatchObject({ toolsets: 'searches posts', readOnly: true });
    const page = await (await browserGet(`${fx.server.url}/account`, fx.user.cookie)).text();
    expect(page).toContain('Only Searches, Posts, read-only');
    const csrf = /name="csrf" value="([^"]+)"/.exec(page)?.[1] ?? '';
    const body = new URLSearchParams({ csrf, grant: grant?.id ?? '', toolsets_shown: '1' });
    for (const t of ['searches', 'posts', 'experts', 'agent_runs', 'schedules', 'account'])
      body.append('toolset', t);
    const saved = await fetch(`${fx.server.url}/account/apps/toolsets`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        cookie: fx.user.cookie,
        'content-type': 'application/x-www-form-urlencoded',
        origin: new URL(fx.server.url).origin,
      },
      body,
    });
    expect(saved.status).toBe(303);
    const client = new Client({ name: 'toolsets', version: '1' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${fx.server.url}/mcp`), { authProvider: provider as never }),
    );
    expect((await client.listTools()).tools.length).toBeGreaterThan(6);
    await client.close();
  });

  it('authorizing again is remembered when the view asked is the same, and asks again when it differs', async () => {
    const clientId = (provider.clientInfo as { client_id: string }).client_id;
    const again = (resource: string) => {
      const url = new URL(`${fx.server.url}/authorize`);
      for (const [k, v] of Object.entries({
        response_type: 'code',
        client_id: clientId,
        redirect_uri: 'http://localhost:3000/callback',
        code_challenge: pkce().challenge,
        code_challenge_method: 'S256',
        resource,
      }))
        url.searchParams.set(k, v);
      return browserGet(url.href, fx.user.cookie);
    };
    const base = fx.server.config.resourceUrl;
    // Asking for no view in particular, or for the one chosen (every tool, since the account page),
    // needs no new consent; asking for another does.
    expect((await again(base)).status).toBe(302);
    const same = await again(`${base}?toolsets=all`);
    expect(same.status).toBe(302);
    expect(callbackParams(same).get('code')).toBeTruthy();
    const other = await again(`${base}/readonly`);
    expect(other.status).toBe(200);
    expect(await other.text()).toContain('Tools it will see');
  });

  it('refuses a consent that ticks no group of tools, showing the form again', async () => {
    const client = await registerClient(fx.server, {}, freshAddress());
    const { decision } = await consent(
      fx.server,
      fx.user,
      authorizeUrl(fx.server, {
        clientId: client.client_id,
        challenge: pkce().challenge,
        scope: 'searches:read',
      }),
      { tamper: (form) => form.delete('toolset') },
    );
    expect(decision?.status).toBe(400);
    expect(await decision?.text()).toContain('Tick at least one group of tools');
  });
});
