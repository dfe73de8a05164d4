import { Counter } from 'prom-client';
import { registry } from './registry.js';

export const tokensIssued = new Counter({
  name: 'oauth_tokens_issued_total',
  help: 'Access/refresh token pairs issued by the token endpoint, by grant type (authorization_code, refresh_token).',
  labelNames: ['grant_type'] as const,
  registers: [registry],
});

export const refreshes = new Counter({
  name: 'oauth_refreshes_total',
  help: 'Refresh-token requests, by outcome (ok, or why refused: unknown, expired, revoked, reused, …).',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

export const refreshReuseDetections = new Counter({
  name: 'oauth_refresh_token_reuse_detected_total',
  help: 'Rotated refresh tokens presented again outside the grace window: the token family was revoked.',
  registers: [registry],
});

export const clientRegistrations = new Counter({
  name: 'oauth_client_registrations_total',
  help: 'OAuth clients registered (dcr: RFC 7591) or client metadata documents fetched (cimd).',
  labelNames: ['kind'] as const,
  registers: [registry],
});
