import type { WorkspaceRole } from '../../accounts/workspaces.js';
import type { Scope } from '../../oauth/scopes.js';

/** The member's place in the team, read with the grant; src/teams/tool-policy.ts applies it. */
export interface CallerTeam {
  role: WorkspaceRole;
  /** The member's "Can change team webhook" switch; null means their role's default. */
  canChangeWebhook: boolean | null;
  /** The workspace's setting: plain members may read teammates' runs, schedules and searches. */
  membersReadTeamWork: boolean;
}

/**
 * Who is calling /mcp, resolved by the bearer check from the access token's grant. It travels to the
 * MCP handler as `authInfo.extra.caller` so the tool catalog can be built once and read the caller
 * from each request (DESIGN.md §3).
 */
export interface Caller {
  grantId: string;
  userId: string;
  workspaceId: string;
  clientId: string;
  scopes: readonly Scope[];
  team: CallerTeam;
  /**
   * Decrypted for this request only, on first read; null when the workspace has no linked credential.
   */
  readonly upstream: { token: string; userId: string } | null;
}
