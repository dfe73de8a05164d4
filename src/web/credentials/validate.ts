import {
  isUpstreamTokenShaped,
  isUpstreamUserIdShaped,
  UPSTREAM_TOKEN_MAX_LENGTH,
  UPSTREAM_USER_ID_MAX_LENGTH,
} from '../../upstream/credential-shape.js';

export interface CredentialErrors {
  token?: string;
  upstreamUserId?: string;
  form?: string;
}

/** What is wrong with a typed token and user id, field by field (empty when both are usable). */
export function credentialProblems(token: string, upstreamUserId: string): CredentialErrors {
  const errors: CredentialErrors = {};
  if (!token) errors.token = 'Enter the API token from your API account.';
  else if (token.length > UPSTREAM_TOKEN_MAX_LENGTH)
    errors.token = `An API token has at most ${UPSTREAM_TOKEN_MAX_LENGTH} characters.`;
  else if (!isUpstreamTokenShaped(token))
    errors.token = 'An API token has only letters, digits and punctuation, without spaces.';
  if (!upstreamUserId) errors.upstreamUserId = 'Enter your user ID.';
  else if (upstreamUserId.length > UPSTREAM_USER_ID_MAX_LENGTH)
    errors.upstreamUserId = `A user ID has at most ${UPSTREAM_USER_ID_MAX_LENGTH} characters.`;
  else if (!isUpstreamUserIdShaped(upstreamUserId))
    errors.upstreamUserId = 'A user ID has only letters, digits, punctuation and spaces.';
  return errors;
}
