import type { Context } from 'hono';
import type { OpenStore } from '../db/store/index.js';
import { hashToken, safeEqual } from '../security/tokens.js';
import type { ClientLookupOptions } from './clients/repository.js';
import { findClient } from './clients/repository.js';
import type { OAuthClient } from './clients/types.js';
import { OAuthError } from './errors.js';

/** RFC 6749 §2.3.1: Basic credentials are form-urlencoded before base64. */
function parseBasic(header: string): { id: string; secret: string } | null {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (!match?.[1]) return null;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return null;
  try {
    return {
      id: decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, ' ')),
      secret: decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, ' ')),
    };
  } catch {
    return null;
  }
}

/**
 * Authenticates the client at the token and revocation endpoints with the method it registered:
 * `client_secret_basic`, `client_secret_post`, or `none` (public clients send only client_id).
 * Any failure is 401 invalid_client (RFC 6749 §5.2); an unknown client_id too, so DCR clients whose
 * registration expired know to register again.
 */
export async function authenticateClient(
  c: Context,
  db: OpenStore,
  form: Map<string, string>,
  lookup: ClientLookupOptions,
): Promise<OAuthClient> {
  const authorization = c.req.header('authorization');
  const basic = authorization ? parseBasic(authorization) : null;
  if (authorization && !basic)
    throw invalidClient('The Authorization header is not valid Basic credentials.', true);
  const bodyId = form.get('client_id');
  const bodySecret = form.get('client_secret');
  if (basic && (bodySecret !== undefined || (bodyId !== undefined && bodyId !== basic.id))) {
    // RFC 6749 §2.3: a client MUST NOT use more than one authentication method per request.
    throw new OAuthError(
      'invalid_request',
      'Send client credentials in the Authorization header or the body, not both.',
    );
  }
  const clientId = basic?.id ?? bodyId;
  if (!clientId) throw invalidClient('client_id is missing.', false);

  let client: OAuthClient | null;
  try {
    client = await findClient(db, clientId, lookup);
  } catch (error) {
    // A refused fetch of its metadata document (too many for this address) says so, with Retry-After.
    if (error instanceof OAuthError && error.status !== 429) {
      throw invalidClient(error.description, Boolean(basic));
    }
    throw error;
  }
  if (!client) throw invalidClient('Unknown client. Register again.', Boolean(basic));

  const presented = basic?.secret ?? bodySecret;
  const method = basic ? 'client_secret_basic' : bodySecret !== undefined ? 'client_secret_post' : 'none';
  if (method !== client.tokenEndpointAuthMethod) {
    throw invalidClient(
      `This client must authenticate with ${client.tokenEndpointAuthMethod}.`,
      Boolean(basic),
    );
  }
  if (
    method !== 'none' &&
    (!client.secretHash || !safeEqual(hashToken(presented ?? ''), client.secretHash))
  ) {
    throw invalidClient('The client secret is wrong.', Boolean(basic));
  }
  return client;
}

function invalidClient(description: string, usedBasic: boolean): OAuthError {
  // RFC 6749 §5.2: when the client used Basic, the 401 carries a challenge for that scheme; otherwise
  // there is no scheme to challenge with.
  return new OAuthError('invalid_client', description, 401, usedBasic ? 'Basic realm="token"' : undefined);
}
