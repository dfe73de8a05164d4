import { type Context, Hono } from 'hono';
import type { Config } from '../config.js';
import type { AppEnv } from '../http/env.js';
import { anyOriginCors } from './cors.js';
import { READ_ONLY_SUFFIX, resourceView } from './resource-variants.js';
import { SCOPES } from './scopes.js';

export const PROTECTED_RESOURCE_PATH = '/.well-known/oauth-protected-resource';

/**
 * The RFC 9728 metadata URL of the MCP resource, as put in WWW-Authenticate challenges; `tail` names a
 * variant (resource-variants.ts: its path below /mcp and its query, §3.1).
 */
export function resourceMetadataUrl(config: Config, tail = ''): string {
  return `${config.publicUrl}${PROTECTED_RESOURCE_PATH}/mcp${tail}`;
}

/** RFC 8414 §2. Advertises only what is implemented. */
export function authorizationServerMetadata(config: Config) {
  const issuer = config.publicUrl;
  return {
    issuer,
    authorization_endpoint: `${issuer}/authorize`,
    token_endpoint: `${issuer}/token`,
    registration_endpoint: `${issuer}/register`,
    revocation_endpoint: `${issuer}/revoke`,
    scopes_supported: [...SCOPES],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    token_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
    revocation_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
    code_challenge_methods_supported: ['S256'],
    // RFC 9207: every authorization response carries `iss`.
    authorization_response_iss_parameter_supported: true,
    // draft-ietf-oauth-client-id-metadata-document: https URLs are accepted as client_id.
    client_id_metadata_document_supported: true,
    service_documentation: `${issuer}/`,
  };
}

/** RFC 9728 §2; `resource` a variant's URL when the metadata asked for is a variant's (§3.3). */
export function protectedResourceMetadata(config: Config, resource = config.resourceUrl) {
  return {
    resource,
    authorization_servers: [config.publicUrl],
    scopes_supported: [...SCOPES],
    bearer_methods_supported: ['header'],
    resource_name: 'Social Intel MCP',
    resource_documentation: `${config.publicUrl}/`,
  };
}

/**
 * The well-known documents. Browser-based clients read them cross-origin, so they allow any origin
 * (they are public and carry no credentials).
 */
export function metadataRoutes(config: Config) {
  const app = new Hono<AppEnv>();
  const as = authorizationServerMetadata(config);
  const prm = protectedResourceMetadata(config);
  const publicCors = anyOriginCors({ methods: ['GET'], maxAgeSeconds: 86_400 });
  const cache = { 'Cache-Control': 'public, max-age=3600' };

  app.use('/.well-known/*', publicCors);
  // RFC 8414 §3 and the OpenID Connect Discovery path, which some clients try first.
  app.get('/.well-known/oauth-authorization-server', (c) => c.json(as, 200, cache));
  app.get('/.well-known/openid-configuration', (c) => c.json(as, 200, cache));
  // RFC 9728 §3.1: path-suffixed for the /mcp resource, and the root for clients that only try it. A
  // variant's (its read-only path, its query) names the variant as its resource, which its client
  // must find equal to the URL it connects to (§3.3); anything else there gets the canonical one.
  const variant = (c: Context<AppEnv>, suffix: string) => {
    const search = new URL(c.req.url).search;
    if (!suffix && !search) return prm;
    const candidate = `${config.resourceUrl}${suffix}${search}`;
    return resourceView(candidate, config.resourceUrl)
      ? protectedResourceMetadata(config, new URL(candidate).href)
      : prm;
  };
  app.get(`${PROTECTED_RESOURCE_PATH}/mcp`, (c) => c.json(variant(c, ''), 200, cache));
  app.get(`${PROTECTED_RESOURCE_PATH}/mcp${READ_ONLY_SUFFIX}`, (c) =>
    c.json(variant(c, READ_ONLY_SUFFIX), 200, cache),
  );
  app.get(PROTECTED_RESOURCE_PATH, (c) => c.json(prm, 200, cache));
  return app;
}
