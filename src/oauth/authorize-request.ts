import type { OAuthClient } from './clients/types.js';
import { isValidChallenge } from './pkce.js';
import { checkRedirectUri, matchRedirectUri } from './redirect-uris.js';
import { asksForLess, type ResourceView, resourceView } from './resource-variants.js';
import { parseScopes, SCOPES, type Scope } from './scopes.js';

/**
 * Validation of an authorization request as pure steps (RFC 6749 §4.1.1 and §4.1.2.1, RFC 7636 §4.3,
 * RFC 8707 §2). Errors about the client or redirect URI must be shown to the person, never sent to
 * the redirect URI (§4.1.2.1: it could be an attacker's); everything after that goes back to the client.
 */
export type AuthorizeCheck =
  | { kind: 'show'; message: string }
  | { kind: 'redirect'; redirectUri: string; state: string | null; error: string; description: string }
  | {
      kind: 'ok';
      redirectUri: string;
      /** Whether the request named redirect_uri (then /token must repeat it, OAuth 2.1 §4.1.3). */
      redirectUriSent: boolean;
      state: string | null;
      codeChallenge: string;
      scopes: Scope[];
      resource: string;
      /** The narrower view a variant of the resource asked for (resource-variants.ts), or null. */
      asked: ResourceView | null;
      forceConsent: boolean;
    };

/** The state is echoed as-is; bound it so it cannot be used to bloat redirects. */
const MAX_STATE_LENGTH = 2048;

export function resolveRedirectUri(client: OAuthClient, requested: string | undefined): string | null {
  // Registrations stored before a rule tightened (a scheme refused since) are not used either.
  const usable = client.redirectUris.filter((uri) => checkRedirectUri(uri).ok);
  if (requested === undefined) {
    // §3.1.2.3: may be omitted only when exactly one is registered.
    return client.redirectUris.length === 1 ? (usable[0] ?? null) : null;
  }
  return matchRedirectUri(usable, requested) ? requested : null;
}

export function checkAuthorizeRequest(
  client: OAuthClient,
  params: URLSearchParams,
  canonicalResource: string,
): AuthorizeCheck {
  // Only a repeated client_id or redirect_uri leaves us unsure where to send an error, so only those
  // are shown (RFC 6749 §4.1.2.1); other repeats go back to the client as invalid_request below, and
  // several `resource` values as invalid_target (RFC 8707 §2), with state and iss like any error.
  for (const name of ['client_id', 'redirect_uri']) {
    if (params.getAll(name).length > 1) {
      return { kind: 'show', message: `The request repeats the parameter ${name}.` };
    }
  }
  const redirectUri = resolveRedirectUri(client, params.get('redirect_uri') ?? undefined);
  if (!redirectUri) {
    return {
      kind: 'show',
      message: params.has('redirect_uri')
        ? 'The app asked to return to an address it did not register (redirect_uri mismatch).'
        : 'The app did not say where to return (redirect_uri is missing).',
    };
  }
  const repeated = ['response_type', 'state', 'code_challenge', 'code_challenge_method', 'scope'].find(
    (name) => params.getAll(name).length > 1,
  );
  const state = repeated === 'state' ? null : params.get('state');
  const fail = (error: string, description: string): AuthorizeCheck => ({
    kind: 'redirect',
    redirectUri,
    state: state && state.length <= MAX_STATE_LENGTH ? state : null,
    error,
    description,
  });
  if (repeated) return fail('invalid_request', `The request repeats the parameter ${repeated}.`);
  if (state !== null && state.length > MAX_STATE_LENGTH) {
    return fail('invalid_request', `state is longer than ${MAX_STATE_LENGTH} characters.`);
  }
  if (params.get('response_type') !== 'code') {
    return fail('unsupported_response_type', 'Only response_type=code is supported.');
  }
  if (!client.grantTypes.includes('authorization_code')) {
    return fail('unauthorized_client', 'This client is not registered for the authorization_code grant.');
  }
  const challenge = params.get('code_challenge');
  // OAuth 2.1 §4.1.1: PKCE with S256 is required; `plain` is refused (it protects nothing).
  if (!challenge) return fail('invalid_request', 'code_challenge is required (PKCE with S256).');
  if (params.get('code_challenge_method') !== 'S256') {
    return fail('invalid_request', 'code_challenge_method must be S256.');
  }
  if (!isValidChallenge(challenge))
    return fail('invalid_request', 'code_challenge is not a valid S256 challenge.');
  const resources = params.getAll('resource');
  const view = resources[0] === undefined ? null : resourceView(resources[0], canonicalResource);
  if (resources.length > 1 || (resources[0] !== undefined && !view)) {
    // RFC 8707 §2: the resource must be one this server issues tokens for (a variant names it too).
    return fail('invalid_target', `The only resource this server issues tokens for is ${canonicalResource}.`);
  }
  // Unknown scopes (openid, profile, offline_access, …) are ignored, not refused (clients send them by
  // habit); none means all.
  const asked = parseScopes(params.get('scope'));
  const scopes = asked.length ? asked : [...SCOPES];
  const prompt = (params.get('prompt') ?? '').split(' ');
  if (prompt.includes('none'))
    return fail('interaction_required', 'This server always needs the person to sign in and consent.');
  return {
    kind: 'ok',
    redirectUri,
    redirectUriSent: params.has('redirect_uri'),
    state,
    codeChallenge: challenge,
    scopes,
    resource: canonicalResource,
    asked: asksForLess(view) ? view : null,
    forceConsent: prompt.includes('consent') || prompt.includes('login'),
  };
}

/** The client's redirect with the response parameters (and `iss`, RFC 9207 §2) appended. */
export function redirectWith(
  redirectUri: string,
  params: Record<string, string | null>,
  issuer: string,
): string {
  const url = new URL(redirectUri);
  for (const [key, value] of Object.entries(params)) if (value !== null) url.searchParams.set(key, value);
  url.searchParams.set('iss', issuer);
  return url.toString();
}
