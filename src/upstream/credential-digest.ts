import { createHash } from 'node:crypto';
import type { UpstreamCredentials } from './wire-types.js';

/**
 * A credential (token and user id) as a SHA-256 digest, for keys that outlive a call and need not hold
 * the token: the circuit per host and credential, the shared polls, the followers kept per search.
 * Remembered per credentials object: a caller's object is kept by the bearer cache across its requests,
 * so a proxied call hashes its token once per cache entry, not once per key on every call. A WeakMap
 * holds nothing beyond the object's own life.
 */
const digests = new WeakMap<UpstreamCredentials, string>();

export function credentialDigest(creds: UpstreamCredentials): string {
  let digest = digests.get(creds);
  if (digest === undefined) {
    digest = createHash('sha256')
      .update(creds.token)
      .update('\u0000')
      .update(creds.userId)
      .digest('base64url');
    digests.set(creds, digest);
  }
  return digest;
}
