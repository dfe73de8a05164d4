import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

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
  ) {
    super(description);
    this.name = 'OAuthError';
  }
}

/** The JSON error body, never cached (RFC 6749 §5.1/§5.2). */
export function oauthErrorResponse(c: Context, error: OAuthError, headers: Record<string, string> = {}) {
  return c.json({ error: error.code, error_description: error.description }, error.status, {
    'Cache-Control': 'no-store',
    Pragma: 'no-cache',
    ...headers,
  });
}
