import { UPSTREAM_TOKEN_MAX_LENGTH, UPSTREAM_USER_ID_MAX_LENGTH } from '../../accounts/credentials.js';

export interface CredentialErrors {
  token?: string;
  upstreamUserId?: string;
  form?: string;
}

/** Visible ASCII without spaces: an API token travels as an HTTP header value. */
const TOKEN_PATTERN = /^[\x21-\x7E]+$/;
/** Visible ASCII and inner spaces: also a header value. */
const USER_ID_PATTERN = /^[\x21-\x7E](?:[\x20-\x7E]*[\x21-\x7E])?$/;

/** What is wrong with a typed token and user id, field by field (empty when both are usable). */
export function credentialProblems(token: string, upstreamUserId: string): CredentialErrors {
  const errors: CredentialErrors = {};
  if (!token) errors.token = 'Enter the API token from your API account.';
  else if (token.length > UPSTREAM_TOKEN_MAX_LENGTH)
    errors.token = `An API token has at most ${UPSTREAM_TOKEN_MAX_LENGTH} characters.`;
  else if (!TOKEN_PATTERN.test(token))
    errors.token = 'An API token has only letters, digits and punctuation, without spaces.';
  if (!upstreamUserId) errors.upstreamUserId = 'Enter your user ID.';
  else if (upstreamUserId.length > UPSTREAM_USER_ID_MAX_LENGTH)
    errors.upstreamUserId = `A user ID has at most ${UPSTREAM_USER_ID_MAX_LENGTH} characters.`;
  else if (!USER_ID_PATTERN.test(upstreamUserId))
    errors.upstreamUserId = 'A user ID has only letters, digits, punctuation and spaces.';
  return errors;
}
