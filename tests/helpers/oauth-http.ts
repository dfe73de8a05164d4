import { createHash, randomBytes } from 'node:crypto';
import { saveUpstreamCredential } from '../../src/accounts/credentials.js';
import { createSession } from '../../src/accounts/sessions.js';
import { createUser } from '../../src/accounts/users.js';
import { cookiePolicy } from '../../src/web/cookies.js';
import type { TestServer } from './server.js';

/**
 * Drives the authorization server over plain HTTP the way a browser would (session cookie, the
 * consent form's fields, same-origin POST), for the many rule-by-rule tests. The full flow with a
 * real browser and the SDK clients is in tests/e2e.
 */

export interface SignedInUser {
  userId: string;
  workspaceId: string;
  email: string;
  /** The Cookie header value of a signed-in browser. */
  cookie: string;
}

let counter = 0;

export async function signedInUser(
  server: TestServer,
  options: { upstreamToken?: string | null; upstreamUserId?: string } = {},
): Promise<SignedInUser> {
  counter += 1;
  const email = `oauth-${process.pid}-${counter}-${Date.now()}@example.com`;
  const created = await createUser(server.db, { email, password: 'correct horse battery staple' });
  if (!created.ok) throw new Error(created.reason);
  const token = options.upstreamToken === undefined ? 'sandbox-token-for-tests' : options.upstreamToken;
  if (token !== null) {
    await saveUpstreamCredential(server.db, server.secrets, {
      workspaceId: created.personalWorkspaceId,
      linkedBy: created.user.id,
      token,
      upstreamUserId: options.upstreamUserId ?? `oauth-user-${counter}`,
      verifiedAt: Date.now(),
    });
  }
  const session = await createSession(server.db, created.user.id, 'test');
  return {
    userId: created.user.id,
    workspaceId: created.personalWorkspaceId,
    email,
    cookie: `${cookiePolicy(server.config).sessionName}=${session}`,
  };
}

export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export async function registerClient(
  server: TestServer,
  metadata: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<{ client_id: string; client_secret?: string; [key: string]: unknown }> {
  const res = await fetch(`${server.url}/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({
      client_name: 'Test Client',
      redirect_uris: ['http://localhost:3000/callback'],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      ...metadata,
    }),
  });
  if (res.status !== 201) throw new Error(`registration failed: ${res.status} ${await res.text()}`);
  return (await res.json()) as { client_id: string; client_secret?: string };
}

export interface AuthorizeParams {
  clientId: string;
  redirectUri?: string;
  challenge?: string;
  method?: string | null;
  scope?: string | null;
  state?: string | null;
  resource?: string | null;
  responseType?: string;
  extra?: Record<string, string>;
}

export function authorizeUrl(server: TestServer, p: AuthorizeParams): string {
  const url = new URL(`${server.url}/authorize`);
  url.searchParams.set('response_type', p.responseType ?? 'code');
  url.searchParams.set('client_id', p.clientId);
  url.searchParams.set('redirect_uri', p.redirectUri ?? 'http://localhost:3000/callback');
  if (p.challenge !== undefined) url.searchParams.set('code_challenge', p.challenge);
  if (p.method !== null) url.searchParams.set('code_challenge_method', p.method ?? 'S256');
  if (p.scope !== null && p.scope !== undefined) url.searchParams.set('scope', p.scope);
  if (p.state !== null) url.searchParams.set('state', p.state ?? 'state-123');
  if (p.resource !== null) url.searchParams.set('resource', p.resource ?? server.config.resourceUrl);
  for (const [k, v] of Object.entries(p.extra ?? {})) url.searchParams.set(k, v);
  return url.toString();
}

/** GET without following redirects, as the given browser. */
export function browserGet(url: string, cookie?: string): Promise<Response> {
  return fetch(url, { redirect: 'manual', headers: cookie ? { cookie } : {} });
}

/** Reads a hidden input's value from a page. */
export function hiddenField(html: string, name: string): string | null {
  const match = new RegExp(`<input[^>]*name="${name}"[^>]*value="([^"]*)"`).exec(html);
  return match?.[1]?.replace(/&amp;/g, '&').replace(/&quot;/g, '"') ?? null;
}

export function workspaceOptions(html: string): string[] {
  return [...html.matchAll(/<option value="([^"]+)"/g)].map((m) => m[1] as string);
}

/** The ticked scope checkboxes of a consent page, as a browser would submit them. */
export function tickedScopes(html: string): string[] {
  return [...html.matchAll(/<input type="checkbox" name="scope" value="([^"]+)"[^>]*checked/g)].map(
    (m) => m[1] as string,
  );
}

/**
 * Opens the consent page and answers it. Returns the response of the decision POST (a 303 to the
 * client), or of the GET when it did not show a consent page (remembered consent, errors).
 */
export async function consent(
  server: TestServer,
  user: SignedInUser,
  url: string,
  options: {
    decision?: 'allow' | 'deny';
    workspace?: string;
    /** The scopes left ticked (default: as the page ticks them, i.e. all requested). */
    scopes?: readonly string[];
    tamper?: (form: URLSearchParams) => void;
  } = {},
): Promise<{ page: Response; html: string; decision: Response | null }> {
  const page = await browserGet(url, user.cookie);
  const html = page.status === 200 ? await page.text() : '';
  const request = hiddenField(html, 'request');
  if (page.status !== 200 || !request) return { page, html, decision: null };
  const form = new URLSearchParams({
    csrf: hiddenField(html, 'csrf') ?? '',
    request,
    workspace: options.workspace ?? workspaceOptions(html)[0] ?? '',
    decision: options.decision ?? 'allow',
  });
  for (const scope of options.scopes ?? tickedScopes(html)) form.append('scope', scope);
  // The tools it will see, as the page ticks them (every toolset unless the client asked for fewer).
  if (html.includes('name="toolsets_shown"')) form.append('toolsets_shown', '1');
  for (const m of html.matchAll(/name="toolset" value="([a-z_]+)" checked/g))
    form.append('toolset', m[1] as string);
  if (/name="read_only" value="on" checked/.test(html)) form.append('read_only', 'on');
  options.tamper?.(form);
  const decision = await fetch(`${server.url}/authorize/decision`, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      cookie: user.cookie,
      'content-type': 'application/x-www-form-urlencoded',
      origin: new URL(server.url).origin,
      'sec-fetch-site': 'same-origin',
    },
    body: form,
  });
  return { page, html, decision };
}

/** The code (and the other parameters) from a redirect to the client. */
export function callbackParams(res: Response): URLSearchParams {
  const location = res.headers.get('location');
  if (!location) throw new Error(`expected a redirect, got ${res.status}`);
  return new URL(location).searchParams;
}

export async function tokenRequest(
  server: TestServer,
  params: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  const res = await fetch(`${server.url}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(params),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, headers: res.headers };
}

/** Registration → consent → code → tokens, for tests that need a working grant. */
export async function fullGrant(
  server: TestServer,
  user: SignedInUser,
  options: { scope?: string; metadata?: Record<string, unknown> } = {},
) {
  const client = await registerClient(server, options.metadata);
  const { verifier, challenge } = pkce();
  const { decision } = await consent(
    server,
    user,
    authorizeUrl(server, { clientId: client.client_id, challenge, scope: options.scope ?? null }),
  );
  if (!decision) throw new Error('no consent page');
  const code = callbackParams(decision).get('code');
  if (!code) throw new Error(`no code: ${decision.headers.get('location')}`);
  const tokens = await tokenRequest(server, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: 'http://localhost:3000/callback',
    code_verifier: verifier,
    client_id: client.client_id,
    resource: server.config.resourceUrl,
  });
  if (tokens.status !== 200) throw new Error(`token exchange failed: ${JSON.stringify(tokens.body)}`);
  return {
    client,
    accessToken: tokens.body.access_token as string,
    refreshToken: tokens.body.refresh_token as string,
  };
}

/** A JSON-RPC POST to /mcp with a bearer token. */
export function mcpPost(
  server: TestServer,
  token: string | null,
  body: unknown,
  headers: Record<string, string> = {},
) {
  return fetch(`${server.url}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...headers,
    },
    body: JSON.stringify(body),
  });
}

// ---------------------------------------------------------------------------------------------
// Additions for the rule-by-rule conformance tests (tests/oauth).

/**
 * Authorizes `clientId` for `user` and returns the code: through the consent page, or straight from
 * the redirect when consent is remembered. Throws when neither gives a code.
 */
export async function authorizeCode(
  server: TestServer,
  user: SignedInUser,
  p: AuthorizeParams,
  options: { workspace?: string } = {},
): Promise<{ code: string; redirect: Response; consentShown: boolean }> {
  const { page, decision } = await consent(server, user, authorizeUrl(server, p), options);
  const redirect = decision ?? page;
  const code = redirect.headers.get('location') ? callbackParams(redirect).get('code') : null;
  if (!code) throw new Error(`no code: ${redirect.status} ${redirect.headers.get('location')}`);
  return { code, redirect, consentShown: decision !== null };
}

/** The authorization_code exchange of a public client, with overridable parameters. */
export function exchangeCode(
  server: TestServer,
  p: { clientId: string; code: string; verifier: string; redirectUri?: string },
  extra: Record<string, string> = {},
  headers: Record<string, string> = {},
) {
  return tokenRequest(
    server,
    {
      grant_type: 'authorization_code',
      code: p.code,
      redirect_uri: p.redirectUri ?? 'http://localhost:3000/callback',
      code_verifier: p.verifier,
      client_id: p.clientId,
      resource: server.config.resourceUrl,
      ...extra,
    },
    headers,
  );
}

/** A new grant for an already registered public client (authorize → consent or remembered → token). */
export async function grantForClient(
  server: TestServer,
  user: SignedInUser,
  clientId: string,
  options: { scope?: string } = {},
): Promise<{ accessToken: string; refreshToken: string; scope: string }> {
  const { verifier, challenge } = pkce();
  const { code } = await authorizeCode(server, user, { clientId, challenge, scope: options.scope ?? null });
  const tokens = await exchangeCode(server, { clientId, code, verifier });
  if (tokens.status !== 200) throw new Error(`token exchange failed: ${JSON.stringify(tokens.body)}`);
  return {
    accessToken: tokens.body.access_token as string,
    refreshToken: tokens.body.refresh_token as string,
    scope: tokens.body.scope as string,
  };
}

/** The MCP initialize request, for checking that a bearer token is accepted. */
export const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 'oauth-conformance-tests', version: '1.0.0' },
  },
} as const;

/** The status /mcp answers an initialize with this token (200 = accepted, 401 = refused). */
export async function mcpStatus(server: TestServer, token: string): Promise<number> {
  const res = await mcpPost(server, token, INITIALIZE);
  await res.body?.cancel();
  return res.status;
}

/** POST /revoke as a public client. */
export async function revokeRequest(
  server: TestServer,
  params: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<{ status: number; text: string; headers: Headers }> {
  const res = await fetch(`${server.url}/revoke`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(params),
  });
  return { status: res.status, text: await res.text(), headers: res.headers };
}

let addressCounter = 0;
/**
 * An X-Forwarded-For header with a new documentation address each call: against a server started
 * with TRUST_PROXY=true, registrations made with it do not share the per-address rate limit.
 */
export function freshAddress(): Record<string, string> {
  addressCounter += 1;
  return {
    'x-forwarded-for': `198.18.${Math.floor(addressCounter / 250) % 250}.${(addressCounter % 250) + 1}`,
  };
}
