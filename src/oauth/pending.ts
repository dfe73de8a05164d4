import { jwtVerify, SignJWT } from 'jose';
import type { Config } from '../config.js';
import { derivedKey } from '../security/derived-keys.js';
import type { ResourceView } from './resource-variants.js';
import type { Scope } from './scopes.js';

/** A validated authorization request, as the consent form carries it back. */
export interface PendingAuthorization {
  /**
   * One-use id of this consent form: the first decision posted with it is the only one acted on
   * (decisions.ts). Forms signed before it existed carry none and are refused as expired.
   */
  decisionId?: string;
  clientId: string;
  redirectUri: string;
  /** Whether the authorization request named redirect_uri; absent (older forms) counts as sent. */
  redirectUriSent?: boolean;
  codeChallenge: string;
  scopes: Scope[];
  resource: string;
  /** The narrower view a variant of the resource asked for: the consent page starts from it. */
  asked?: ResourceView | null;
  state: string | null;
  /** The person the consent page was shown to: a form replayed in another session is refused. */
  userId: string;
}

/** Long enough to read a consent page, short enough that an abandoned one is useless. */
export const PENDING_TTL_SECONDS = 15 * 60;
const AUDIENCE = 'authorize-decision';

function signingKey(config: Config): Uint8Array {
  return derivedKey(config, 'social-intel-mcp pending-authorization v1');
}

/** Signs the request (HS256, key derived from SECRET_KEY) so the browser cannot change it. */
export function signPending(config: Config, pending: PendingAuthorization): Promise<string> {
  return new SignJWT({ req: pending })
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuer(config.publicUrl)
    .setAudience(AUDIENCE)
    .setIssuedAt()
    .setExpirationTime(`${PENDING_TTL_SECONDS}s`)
    .sign(signingKey(config));
}

/** The request, or null when the signature, issuer, audience or expiry is wrong. */
export async function verifyPending(config: Config, token: string): Promise<PendingAuthorization | null> {
  try {
    const { payload } = await jwtVerify(token, signingKey(config), {
      issuer: config.publicUrl,
      audience: AUDIENCE,
      algorithms: ['HS256'],
    });
    return (payload as { req?: PendingAuthorization }).req ?? null;
  } catch {
    return null;
  }
}
