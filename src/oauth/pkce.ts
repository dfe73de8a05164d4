import { createHash } from 'node:crypto';

/** RFC 7636 §4.1: 43–128 characters of the unreserved set. */
const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;
/** The S256 challenge is base64url of a SHA-256 digest: exactly 43 characters. */
const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

export function isValidChallenge(challenge: string): boolean {
  return CHALLENGE.test(challenge);
}

/** RFC 7636 §4.6: BASE64URL(SHA256(ASCII(code_verifier))) == code_challenge. */
export function verifyPkce(verifier: string, challenge: string): boolean {
  if (!VERIFIER.test(verifier)) return false;
  return createHash('sha256').update(verifier, 'ascii').digest('base64url') === challenge;
}
