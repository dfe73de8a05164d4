import { Hono } from 'hono';
import { SharedRateLimiter } from '../accounts/rate-limits.js';
import { clientAddressKey } from '../http/client-ip.js';
import type { AppEnv } from '../http/env.js';
import { metrics } from '../metrics/index.js';
import { clientMetadataSchema, describeMetadataError } from './clients/metadata-schema.js';
import { registerDynamicClient } from './clients/repository.js';
import { anyOriginCors } from './cors.js';
import type { OAuthDeps } from './deps.js';
import { OAuthError, refuse } from './errors.js';

/**
 * Registrations per client IP: enough for a person setting up several clients, not for a flood.
 * Counted in the database, so the budget is the same behind any number of instances.
 */
export const REGISTRATIONS_PER_IP = { limit: 20, windowMs: 10 * 60_000 };
const MAX_METADATA_BYTES = 16 * 1024;

/**
 * POST /register: RFC 7591 dynamic client registration (deprecated by the 2026-07-28 MCP spec in
 * favour of Client ID Metadata Documents, still what most deployed clients use).
 */
export function registerRoutes(deps: OAuthDeps) {
  const app = new Hono<AppEnv>();
  const limiter = new SharedRateLimiter(deps.db, deps.config, 'registrationsPerIp', REGISTRATIONS_PER_IP);
  app.use('/register', anyOriginCors({ methods: ['POST'], headers: ['Content-Type'] }));
  app.post('/register', async (c) => {
    const decision = await limiter.hit(clientAddressKey(c, deps.config));
    if (!decision.allowed) {
      return c.json(
        {
          error: 'too_many_requests',
          error_description: 'Too many registrations from this address; try again later.',
        },
        429,
        { 'Retry-After': String(decision.retryAfterSeconds), 'Cache-Control': 'no-store' },
      );
    }
    try {
      if (!/^application\/json\b/i.test(c.req.header('content-type') ?? '')) {
        throw new OAuthError(
          'invalid_client_metadata',
          'The body must be a JSON object (Content-Type: application/json).',
        );
      }
      const text = await c.req.text();
      if (Buffer.byteLength(text) > MAX_METADATA_BYTES) {
        throw new OAuthError(
          'invalid_client_metadata',
          `The metadata is larger than ${MAX_METADATA_BYTES} bytes.`,
        );
      }
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        throw new OAuthError('invalid_client_metadata', 'The body is not valid JSON.');
      }
      if (!body || typeof body !== 'object' || Array.isArray(body)) {
        throw new OAuthError('invalid_client_metadata', 'The body must be a JSON object.');
      }
      const parsed = clientMetadataSchema.safeParse(body);
      if (!parsed.success) {
        const bad = parsed.error.issues[0]?.path[0] === 'redirect_uris';
        // RFC 7591 §3.2.2: invalid_redirect_uri for redirect URI problems.
        throw new OAuthError(
          bad ? 'invalid_redirect_uri' : 'invalid_client_metadata',
          describeMetadataError(parsed.error),
        );
      }
      const { client, secret, issuedAt, metadata, grantTypes } = await registerDynamicClient(
        deps.db,
        parsed.data,
      );
      metrics.clientRegistrations.labels('dcr').inc();
      deps.logger.info({ clientId: client.clientId, clientName: client.clientName }, 'client registered');
      return c.json(
        {
          ...metadata,
          client_id: client.clientId,
          client_id_issued_at: issuedAt,
          ...(secret ? { client_secret: secret, client_secret_expires_at: 0 } : {}),
          token_endpoint_auth_method: client.tokenEndpointAuthMethod,
          grant_types: grantTypes,
          application_type: client.applicationType,
        },
        201,
        { 'Cache-Control': 'no-store', Pragma: 'no-cache' },
      );
    } catch (error) {
      return refuse(c, error, 'register');
    }
  });
  return app;
}
