/**
 * What an upstream token and user id may look like before anything is sent: both travel as HTTP header values
 * (docs/upstream.md, Two hosts, two headers), so visible ASCII only, and bounded. The credentials page, the
 * upstream headers of /mcp and the stdio server's environment apply the same rules.
 */
export const UPSTREAM_TOKEN_MAX_LENGTH = 512;
export const UPSTREAM_USER_ID_MAX_LENGTH = 128;

/** Visible ASCII without spaces. */
const TOKEN_PATTERN = /^[\x21-\x7E]+$/;
/** Visible ASCII and inner spaces. */
const USER_ID_PATTERN = /^[\x21-\x7E](?:[\x20-\x7E]*[\x21-\x7E])?$/;

export function isUpstreamTokenShaped(token: string): boolean {
  return token.length <= UPSTREAM_TOKEN_MAX_LENGTH && TOKEN_PATTERN.test(token);
}

export function isUpstreamUserIdShaped(userId: string): boolean {
  return userId.length <= UPSTREAM_USER_ID_MAX_LENGTH && USER_ID_PATTERN.test(userId);
}
