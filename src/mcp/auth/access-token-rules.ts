/**
 * What the bearer check does differently for an access token a person made for automation (a grant of
 * kind `access_token`): the team's longest lifetime and its switch apply to it, and its refusals say
 * what to do about a token rather than about an app.
 */
export const TOKEN_NOT_A_MEMBER =
  'You are no longer a member of the workspace this access token was made for. Create a new token in one of your workspaces.';

export const TOKENS_OFF = {
  ok: false,
  reason: 'Access tokens are turned off in this workspace. A team owner or admin can turn them on again.',
} as const;

const DAY_MS = 24 * 3600 * 1000;

/**
 * An access token's end: its own expiry, or its workspace's longest lifetime from its creation if that
 * comes first, so lowering the team's maximum shortens tokens already made, at once.
 */
export function automationExpiry(row: {
  expiresAt: number;
  grantCreatedAt: number;
  accessTokenMaxDays: number | null;
}): number {
  return row.accessTokenMaxDays === null
    ? row.expiresAt
    : Math.min(row.expiresAt, row.grantCreatedAt + row.accessTokenMaxDays * DAY_MS);
}
