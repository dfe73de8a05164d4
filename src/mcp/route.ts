import type { ServerResponse } from 'node:http';
import { Hono } from 'hono';
import { toolCallAuditor } from '../audit/tool-calls.js';
import type { Config } from '../config.js';
import type { Store } from '../db/store/index.js';
import { clientAddressKey } from '../http/client-ip.js';
import type { AppEnv } from '../http/env.js';
import { nodeResponse } from '../http/node-response.js';
import type { Logger } from '../logger.js';
import { metrics } from '../metrics/index.js';
import { resourceMetadataUrl } from '../oauth/metadata.js';
import { variantTail } from '../oauth/resource-variants.js';
import { formatScopes, SCOPES, type Scope } from '../oauth/scopes.js';
import type { BearerCheck } from './auth/authenticate.js';
import { auditIdentity, type Caller } from './auth/caller.js';
import { beyondCeilingResult, checkScopes, notGrantedResult, type ToolRefusal } from './auth/scope-check.js';
import { askedSelection, outsideSelection, READ_ONLY_PATH } from './auth/selection.js';
import type { UpstreamHeaderCheck } from './auth/upstream-headers.js';
import { messageRefusal, textRefusal } from './request-limits.js';
import { narrow, type ToolSelection, toolsetList } from './tools/toolsets.js';

/** The MCP handler the route hands authenticated requests to (SDK v2 `createMcpHandler` underneath). */
export interface McpRequestHandler {
  fetch(
    request: Request,
    options: { authInfo: McpAuthInfo; parsedBody?: unknown; outgoing?: ServerResponse | undefined },
  ): Promise<Response>;
}

export interface McpAuthInfo {
  token: string;
  clientId: string;
  scopes: string[];
  expiresAt?: number;
  resource?: URL;
  /**
   * selection: the tools this connection chose (its grant's and its URL's or headers', narrowest);
   * refusal: the tools/call is answered with this result instead of running the tool.
   */
  extra: { caller: Caller; selection: ToolSelection; refusal?: ToolRefusal; arrivedAt?: number };
}

export interface McpRouteDeps {
  config: Config;
  db: Store;
  /** The bearer check, with its cache of recent answers (authenticate.ts). */
  bearers: BearerCheck;
  /** The two upstream headers as a way in, for a request without a bearer (auth/upstream-headers.ts). */
  upstreamHeaders: UpstreamHeaderCheck;
  logger: Logger;
  handler: McpRequestHandler;
  /** The scope a tools/call needs, by tool name; undefined for unknown tools (the handler answers). */
  requiredScopeForTool(name: string): Scope | undefined;
}

/**
 * /mcp: Origin check (DNS rebinding, MCP transport spec "Security Warning"), bearer check with
 * RFC 6750 / RFC 9728 challenges (or, with no bearer, the two upstream headers), scope enforcement on
 * tools/call, then the stateless MCP handler.
 */
export function mcpRoutes(deps: McpRouteDeps) {
  const app = new Hono<AppEnv>();
  const { config } = deps;
  const allowedOrigins = new Set([new URL(config.publicUrl).origin, ...config.allowedOrigins]);
  const allScopes = formatScopes(SCOPES);
  const resource = new URL(config.resourceUrl);
  const audit = toolCallAuditor(deps.db, deps.logger);

  // The metadata of the variant the request is at (its read-only path, its toolsets by URL or header),
  // so a client that authorizes from here names that view and the consent page starts from it.
  const challengeAt = (metadata: string) => (params: Record<string, string>) =>
    `Bearer ${Object.entries({ resource_metadata: metadata, ...params })
      .map(([k, v]) => `${k}="${v.replace(/["\\]/g, '')}"`)
      .join(', ')}`;

  const { tokenHeader, userHeader } = config.upstream;
  const headersChallenge = `Upstream-Headers token_header="${tokenHeader}", user_header="${userHeader}"`;

  const jsonRpcError = (code: number, message: string, id: string | number | null = null) => ({
    jsonrpc: '2.0',
    error: { code, message },
    id,
  });

  // Stateless server (ARCHITECTURE.md, Rules the code keeps): no SSE stream to resume and no session to
  // delete.
  app.on(['GET', 'DELETE'], ['/mcp', READ_ONLY_PATH], (c) =>
    c.json(
      jsonRpcError(-32000, 'Method not allowed: this server is stateless; send JSON-RPC with POST.'),
      405,
      {
        Allow: 'POST',
      },
    ),
  );

  app.on('POST', ['/mcp', READ_ONLY_PATH], async (c) => {
    const origin = c.req.header('origin');
    if (origin !== undefined && !allowedOrigins.has(origin)) {
      return c.json(jsonRpcError(-32600, `Origin ${origin.slice(0, 100)} is not allowed.`), 403);
    }
    const url = new URL(c.req.url);
    const asked = askedSelection(url, (name) => c.req.header(name));
    if (!asked.ok) return c.json(jsonRpcError(-32602, asked.message), 400);
    const { selection: view } = asked;
    const challenge = challengeAt(
      resourceMetadataUrl(
        config,
        variantTail(url.pathname === READ_ONLY_PATH, toolsetList(view), view.readOnly),
      ),
    );

    const authorization = c.req.header('authorization');
    const match = authorization ? /^Bearer ([\x21-\x7e]+)$/i.exec(authorization.trim()) : null;
    let verified: { caller: Caller; ceiling: ReadonlySet<Scope> | null; expiresAt?: number };
    let token: string;
    if (match?.[1]) {
      token = match[1];
      const bearer = await deps.bearers.verify(token);
      if (!bearer.ok) {
        return c.json(jsonRpcError(-32001, bearer.reason), 401, {
          'WWW-Authenticate': challenge({
            error: 'invalid_token',
            error_description: bearer.reason,
            scope: allScopes,
          }),
        });
      }
      verified = bearer;
    } else {
      const direct = await deps.upstreamHeaders.resolve(
        (name) => c.req.header(name),
        () => clientAddressKey(c, config),
      );
      if (direct.kind === 'absent') {
        // RFC 6750 §3.1: no error code when the request carried no credentials at all.
        return c.json(jsonRpcError(-32001, 'Authentication required: connect this server with OAuth.'), 401, {
          'WWW-Authenticate': challenge({ scope: allScopes }),
        });
      }
      if (direct.kind === 'refused') {
        c.get('log').info({ status: direct.status, reason: 'upstream_headers' }, 'upstream headers refused');
        // A 401 must name a scheme (RFC 9110 §11.6.1); a client that chose headers gets one no OAuth
        // client acts on, unless OAuth is the only way left in.
        const scheme = direct.offerOAuth ? challenge({ scope: allScopes }) : headersChallenge;
        return c.json(jsonRpcError(-32001, direct.message), direct.status, {
          ...(direct.status === 401 ? { 'WWW-Authenticate': scheme } : {}),
          ...(direct.retryAfterSeconds ? { 'Retry-After': String(direct.retryAfterSeconds) } : {}),
        });
      }
      verified = { caller: direct.caller, ceiling: null };
      token = direct.caller.key;
    }
    const { caller } = verified;
    // An upstream user has no grant, so nothing chosen beyond the request itself.
    const selection = caller.kind === 'member' ? narrow(caller.selection, asked.selection) : asked.selection;

    let parsedBody: unknown;
    let refusal: ToolRefusal | undefined;
    const isJson = /^application\/json\b/i.test(c.req.header('content-type') ?? '');
    if (isJson) {
      // The text is checked before it is parsed, the message before anything reads it (./request-limits.ts).
      const text = await c.req.text();
      const tooDeep = textRefusal(text);
      if (tooDeep) return c.json(jsonRpcError(tooDeep.code, tooDeep.message), 400);
      try {
        parsedBody = JSON.parse(text);
      } catch {
        return c.json(jsonRpcError(-32700, 'Parse error: the body is not valid JSON.'), 400);
      }
      const overLimit = messageRefusal(parsedBody, text.length);
      if (overLimit) return c.json(jsonRpcError(overLimit.code, overLimit.message, overLimit.id), 400);
      // A tool the connection did not choose is refused as such, before any scope step-up: choosing
      // fewer tools is no reason to ask for more permissions.
      const outside = outsideSelection(parsedBody, selection);
      const verdict = outside
        ? ({ kind: 'allowed' } as const)
        : checkScopes(
            parsedBody,
            caller.scopes,
            verified.ceiling,
            deps.requiredScopeForTool,
            caller.kind !== 'member' || caller.grantKind === 'oauth',
          );
      const refused = async (tool: string, detail: Record<string, unknown>) => {
        metrics.toolCalls.labels(tool, 'refused').inc();
        await audit({
          ...auditIdentity(caller),
          tool,
          status: 'refused',
          durationMs: 0,
          detail,
        });
      };
      if (outside) {
        await refused(outside.tool, { reason: outside.reason, toolset: outside.toolset });
        refusal = outside.refusal;
      }
      if (verdict.kind === 'not-granted') {
        await refused(verdict.tool, { reason: 'insufficient_scope', scope: verdict.scope });
        refusal = notGrantedResult(verdict);
      }
      if (verdict.kind === 'beyond-ceiling') {
        await refused(verdict.tool, { reason: 'scope_ceiling', scope: verdict.scope });
        refusal = beyondCeilingResult(verdict);
      }
      if (verdict.kind === 'step-up') {
        // MCP authorization "Scope Challenge Handling": the scopes this operation needs, plus those
        // already granted (2025-11-25 clients replace their scope with the challenge's; 2026-07-28
        // clients add it to theirs, and a superset does them no harm).
        const needed = verdict.missing.join(' ');
        const union = formatScopes([...caller.scopes, ...verdict.missing]);
        return c.json(
          jsonRpcError(-32003, `This call needs the scope ${needed}, which was not granted.`),
          403,
          {
            'WWW-Authenticate': challenge({
              error: 'insufficient_scope',
              scope: union,
              error_description: `needs ${needed}`,
            }),
          },
        );
      }
    }

    const authInfo: McpAuthInfo = {
      token,
      clientId: caller.clientId,
      scopes: [...caller.scopes],
      ...(verified.expiresAt === undefined ? {} : { expiresAt: Math.floor(verified.expiresAt / 1000) }),
      resource,
      extra: {
        caller,
        selection,
        arrivedAt: c.get('arrivedAt'),
        ...(refusal ? { refusal } : {}),
      },
    };
    return deps.handler.fetch(
      c.req.raw,
      // Node's response, which a waiting call writes its event stream to (./sdk-bypass/waiting-direct.ts).
      isJson ? { authInfo, parsedBody, outgoing: nodeResponse(c) ?? undefined } : { authInfo },
    );
  });
  return app;
}
