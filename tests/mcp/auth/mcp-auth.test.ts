import { describe, expect, it } from 'vitest';
import { saveUpstreamCredential } from '../../../src/accounts/credentials.js';
import { createLogger } from '../../../src/logger.js';
import { BearerCheck } from '../../../src/mcp/auth/authenticate.js';
import { UpstreamHeaderCheck } from '../../../src/mcp/auth/upstream-headers.js';
import { mcpRoutes } from '../../../src/mcp/route.js';
import { SCOPES, type Scope } from '../../../src/oauth/scopes.js';
import { hashToken } from '../../../src/security/tokens.js';
import { removeMember } from '../../../src/teams/members.js';
import { createTeam } from '../../../src/teams/teams.js';
import { oauthFixture } from '../../helpers/oauth-fixture.js';
import {
  authorizeCode,
  exchangeCode,
  grantForClient,
  INITIALIZE,
  mcpPost,
  pkce,
  revokeRequest,
  signedInUser,
  tokenRequest,
} from '../../helpers/oauth-http.js';

const fx = oauthFixture({ client: true });

/** Parses a WWW-Authenticate Bearer challenge's auth-params (RFC 9110 §11.6.1). */
function challengeParams(header: string | null): Record<string, string> {
  expect(header).toMatch(/^Bearer /);
  const params: Record<string, string> = {};
  for (const m of (header ?? '').matchAll(/([a-z_]+)="([^"]*)"/g)) params[m[1] as string] = m[2] as string;
  return params;
}

async function expectInvalidToken(res: Response) {
  expect(res.status).toBe(401);
  const params = challengeParams(res.headers.get('www-authenticate'));
  expect(params.error).toBe('invalid_token');
  expect(params.resource_metadata).toBe(
    `${fx.server.config.publicUrl}/.well-known/oauth-protected-resource/mcp`,
  );
  const body = (await res.json()) as { jsonrpc: string; error: { code: number } };
  expect(body.jsonrpc).toBe('2.0');
}

describe('/mcp without a valid bearer token (RFC 6750 §3, RFC 9728 §5.1, MCP authorization spec)', () => {
  it('RFC 9728 §5.1 / RFC 6750 §3.1: no bearer → 401 with the exact challenge (resource_metadata and scope, no error)', async () => {
    const res = await mcpPost(fx.server, null, INITIALIZE);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${fx.server.config.publicUrl}/.well-known/oauth-protected-resource/mcp", scope="${SCOPES.join(' ')}"`,
    );
  });

  it('RFC 9728 §5.1: the resource_metadata URL in the challenge serves the protected resource metadata', async () => {
    const res = await mcpPost(fx.server, null, INITIALIZE);
    const url = challengeParams(res.headers.get('www-authenticate')).resource_metadata as string;
    const prm = (await (await fetch(url)).json()) as { resource: string };
    expect(prm.resource).toBe(`${fx.server.config.publicUrl}/mcp`);
  });

  it('RFC 6750 §3.1: another scheme (Basic) counts as no bearer → 401 challenge', async () => {
    const res = await mcpPost(fx.server, null, INITIALIZE, { authorization: 'Basic dXNlcjpwYXNz' });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer resource_metadata=/);
  });

  it('RFC 6750 §3.1: a garbage token → 401 error="invalid_token", never 500', async () => {
    for (const token of ['garbage', 'sim_at_notissued', 'x'.repeat(5000), 'a.b.c', '%00%ff']) {
      await expectInvalidToken(await mcpPost(fx.server, token, INITIALIZE));
    }
  });

  it('RFC 6750 §3.1: an expired token → 401 invalid_token', async () => {
    const g = await grantForClient(fx.server, fx.user, fx.clientId);
    await fx.server.sql.run(
      'UPDATE oauth_tokens SET expires_at = ? WHERE token_hash = ?',
      Date.now() - 1,
      hashToken(g.accessToken),
    );
    await expectInvalidToken(await mcpPost(fx.server, g.accessToken, INITIALIZE));
  });

  it('RFC 7009 §2: a revoked token → 401 invalid_token', async () => {
    const g = await grantForClient(fx.server, fx.user, fx.clientId);
    await revokeRequest(fx.server, { token: g.accessToken, client_id: fx.clientId });
    await expectInvalidToken(await mcpPost(fx.server, g.accessToken, INITIALIZE));
  });

  it('RFC 8707 §2 / MCP authorization (token audience): a token issued for another resource → 401 invalid_token', async () => {
    const g = await grantForClient(fx.server, fx.user, fx.clientId);
    await fx.server.sql.run(
      'UPDATE oauth_grants SET resource = ? WHERE id = (SELECT grant_id FROM oauth_tokens WHERE token_hash = ?)',
      'https://other.example/mcp',
      hashToken(g.accessToken),
    );
    await expectInvalidToken(await mcpPost(fx.server, g.accessToken, INITIALIZE));
  });

  it('RFC 6750 §2.1: a refresh token used as a bearer token → 401 invalid_token', async () => {
    const g = await grantForClient(fx.server, fx.user, fx.clientId);
    await expectInvalidToken(await mcpPost(fx.server, g.refreshToken, INITIALIZE));
  });

  it('a token whose user was removed from the grant’s workspace → 401 invalid_token', async () => {
    const member = await signedInUser(fx.server);
    const g = await grantForClient(fx.server, member, fx.clientId);
    expect((await mcpPost(fx.server, g.accessToken, INITIALIZE)).status).toBe(200);
    await fx.server.sql.run(
      'DELETE FROM workspace_members WHERE workspace_id = ? AND user_id = ?',
      member.workspaceId,
      member.userId,
    );
    await expectInvalidToken(await mcpPost(fx.server, g.accessToken, INITIALIZE));
    // A membership that ended without its grants being revoked: the grant ends now, with the reason.
    const grant = (await fx.server.sql.get(
      'SELECT revoked_at, revoked_reason FROM oauth_grants WHERE user_id = ? AND client_id = ?',
      member.userId,
      fx.clientId,
    )) as { revoked_at: number | null; revoked_reason: string | null };
    expect(grant.revoked_at).not.toBeNull();
    expect(grant.revoked_reason).toBe('member_removed');
    expect(await accessRefusals(member.userId)).toEqual([
      { status: 'refused', detail: '{"reason":"member_removed"}' },
    ]);
  });

  it('Removed member: the app is refused with 401 saying why, and the refusal is an audit event with the reason (once a minute, however often it retries)', async () => {
    const owner = await signedInUser(fx.server);
    const member = await signedInUser(fx.server);
    const teamId = ok(await createTeam(fx.server.db, owner.userId, 'Refusal Audit Team'));
    await fx.server.sql.run(
      'INSERT INTO workspace_members (workspace_id, user_id, role, created_at) VALUES (?, ?, ?, ?)',
      teamId,
      member.userId,
      'member',
      Date.now(),
    );
    await saveUpstreamCredential(fx.server.db, fx.server.secrets, {
      workspaceId: teamId,
      linkedBy: owner.userId,
      token: 'team-upstream-token',
      upstreamUserId: 'team',
      verifiedAt: Date.now(),
    });
    const p = pkce();
    const { code } = await authorizeCode(
      fx.server,
      member,
      { clientId: fx.clientId, challenge: p.challenge },
      { workspace: teamId },
    );
    const tokens = await exchangeCode(fx.server, { clientId: fx.clientId, code, verifier: p.verifier });
    const access = tokens.body.access_token as string;
    expect((await mcpPost(fx.server, access, INITIALIZE)).status).toBe(200);

    ok(await removeMember(fx.server.db, teamId, owner.userId, member.userId));
    for (let i = 0; i < 3; i++) {
      const res = await mcpPost(fx.server, access, INITIALIZE);
      expect(res.status).toBe(401);
      expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(
        /no longer a member of the workspace this app was connected to/,
      );
    }
    expect(await accessRefusals(member.userId)).toEqual([
      { status: 'refused', detail: '{"reason":"member_removed"}' },
    ]);
  });
});

async function accessRefusals(userId: string) {
  return await fx.server.sql.all(
    "SELECT status, detail FROM audit_events WHERE kind = 'access_refused' AND user_id = ?",
    userId,
  );
}

function ok<T>(outcome: { ok: true; value: T } | { ok: false; message: string }): T {
  if (!outcome.ok) throw new Error(outcome.message);
  return outcome.value;
}

describe('/mcp transport rules (MCP Streamable HTTP transport)', () => {
  it('MCP transport "Security Warning": a foreign Origin → 403, even with a valid token', async () => {
    const g = await grantForClient(fx.server, fx.user, fx.clientId);
    const res = await mcpPost(fx.server, g.accessToken, INITIALIZE, { origin: 'https://evil.example' });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/not allowed/);
  });

  it('MCP transport: a request from our own origin (or with no Origin) is accepted', async () => {
    const g = await grantForClient(fx.server, fx.user, fx.clientId);
    const own = await mcpPost(fx.server, g.accessToken, INITIALIZE, {
      origin: new URL(fx.server.url).origin,
    });
    expect(own.status).toBe(200);
    await own.body?.cancel();
  });

  it('MCP transport (stateless server): GET and DELETE → 405 with Allow: POST', async () => {
    const g = await grantForClient(fx.server, fx.user, fx.clientId);
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(`${fx.server.url}/mcp`, {
        method,
        headers: { authorization: `Bearer ${g.accessToken}`, accept: 'text/event-stream' },
      });
      expect(res.status, method).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
    }
  });

  it('MCP lifecycle: with a valid token, initialize works', async () => {
    const g = await grantForClient(fx.server, fx.user, fx.clientId);
    const res = await mcpPost(fx.server, g.accessToken, INITIALIZE);
    expect(res.status).toBe(200);
    const text = await res.text();
    const json = text.trim().startsWith('{')
      ? text
      : (text
          .split('\n')
          .find((line) => line.startsWith('data:'))
          ?.slice(5) ?? '{}');
    const body = JSON.parse(json) as {
      id: number;
      result?: { serverInfo?: { name: string }; protocolVersion?: string };
    };
    expect(body.id).toBe(1);
    expect(body.result?.serverInfo?.name).toBeTruthy();
    expect(body.result?.protocolVersion).toBeTruthy();
  });

  it('JSON-RPC 2.0 §5.1: a body that is not JSON, with a valid token → 400 parse error, not 500', async () => {
    const g = await grantForClient(fx.server, fx.user, fx.clientId);
    const res = await fetch(`${fx.server.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${g.accessToken}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: '{"jsonrpc": "2.0",',
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: number } }).error.code).toBe(-32700);
  });
});

describe('scope enforcement on tools/call (MCP authorization "Scope Challenge Handling", RFC 6750 §3.1)', () => {
  /** The /mcp route with a stub MCP handler and a small tool→scope table (the app has no tools yet). */
  function routeWithTools() {
    const seen: string[][] = [];
    const needs: Record<string, Scope> = { start_search: 'searches:write', list_runs: 'agent:read' };
    const app = mcpRoutes({
      config: fx.server.config,
      db: fx.server.db,
      logger: createLogger('silent'),
      bearers: new BearerCheck(fx.server.db, fx.server.secrets, fx.server.config),
      // Every request here carries a bearer: the upstream headers are never consulted.
      upstreamHeaders: new UpstreamHeaderCheck({
        config: fx.server.config,
        verify: () => Promise.reject(new Error('not consulted')),
        rejections: { hit: () => Promise.reject(new Error('not consulted')) },
      }),
      handler: {
        fetch: async (_request, options) => {
          seen.push(options.authInfo.scopes);
          return new Response(JSON.stringify({ jsonrpc: '2.0', id: 1, result: {} }), { status: 200 });
        },
      },
      requiredScopeForTool: (name) => needs[name],
    });
    const call = (token: string, name: string) =>
      app.request('/mcp', {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name, arguments: {} },
        }),
      });
    return { call, seen };
  }

  it('RFC 6750 §3.1: a call outside the grant → 403 insufficient_scope naming granted ∪ needed', async () => {
    const g = await grantForClient(fx.server, fx.user, fx.clientId, { scope: 'searches:read agent:read' });
    const { call, seen } = routeWithTools();
    const refused = await call(g.accessToken, 'start_search');
    expect(refused.status).toBe(403);
    const params = challengeParams(refused.headers.get('www-authenticate'));
    expect(params.error).toBe('insufficient_scope');
    expect(params.scope).toBe('searches:read searches:write agent:read');
    expect(params.resource_metadata).toBe(
      `${fx.server.config.publicUrl}/.well-known/oauth-protected-resource/mcp`,
    );
    expect(seen).toHaveLength(0);
    const allowed = await call(g.accessToken, 'list_runs');
    expect(allowed.status).toBe(200);
    expect(seen).toEqual([['searches:read', 'agent:read']]);
  });

  it('RFC 6749 §6: a token narrowed by refresh lacks the dropped scope at /mcp → 403 insufficient_scope', async () => {
    const g = await grantForClient(fx.server, fx.user, fx.clientId);
    const narrowed = await tokenRequest(fx.server, {
      grant_type: 'refresh_token',
      refresh_token: g.refreshToken,
      client_id: fx.clientId,
      scope: 'searches:read',
    });
    expect(narrowed.status).toBe(200);
    const { call } = routeWithTools();
    expect((await call(g.accessToken, 'start_search')).status).toBe(200);
    const res = await call(narrowed.body.access_token as string, 'start_search');
    expect(res.status).toBe(403);
    expect(challengeParams(res.headers.get('www-authenticate')).scope).toBe('searches:read searches:write');
  });
});
