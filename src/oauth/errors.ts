import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { AppEnv } from '../http/env.js';

/** RFC 6749 §5.2 / RFC 7591 §3.2.2 / RFC 7009 §2.2.1 error codes this server uses. */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'invalid_scope'
  | 'invalid_target'
  | 'unsupported_token_type'
  | 'invalid_redirect_uri'
  | 'invalid_client_metadata'
  | 'temporarily_unavailable'
  | 'server_error';

export class OAuthError extends Error {
  constructor(
    readonly code: OAuthErrorCode,
    readonly description: string,
    readonly status: ContentfulStatusCode = 400,
    /** A WWW-Authenticate value for the response (RFC 6749 §5.2, failed Basic client authentication). */
    readonly challenge?: string,
    /** Seconds until a refused request may be repeated (RFC 9110 §10.2.3), for a 429. */
    readonly retryAfterSeconds?: number,
  ) {
    super(description);
    this.name = 'OAuthError';
  }
}

/** The JSON error body, never cached (RFC 6749 §5.1/§5.2), with the error's challenge if it has one. */
function oauthErrorResponse(c: Context, error: OAuthError) {
  return c.json({ error: error.code, error_description: error.description }, error.status, {
    'Cache-Control': 'no-store',
    Pragma: 'no-cache',
    ...(error.challenge ? { 'WWW-Authenticate': error.challenge } : {}),
    ...(error.retryAfterSeconds ? { 'Retry-After': String(error.retryAfterSeconds) } : {}),
  });
}

/**
 * The endpoints' catch: an OAuthError becomes its error response, logged by code and description
 * only (never the submitted values, which can be secrets); anything else is rethrown (a 500).
 */
export function refuse(c: Context<AppEnv>, error: unknown, endpoint: string): Response {
  if (!(error instanceof OAuthError)) throw error;
  c.get('log').info({ error: error.code, description: error.description, endpoint }, 'oauth request refused');
  return oauthErrorResponse(c, error);
}
