import type { WorkspaceRole } from '../../accounts/workspaces.js';
import type { Scope } from '../../oauth/scopes.js';
import type { ToolSelection } from '../tools/toolsets.js';

/** The member's place in the team, read with the grant; src/teams/tool-policy.ts applies it. */
export interface CallerTeam {
  role: WorkspaceRole;
  /** The member's "Can change team webhook" switch; null means their role's default. */
  canChangeWebhook: boolean | null;
  /** The workspace's setting: plain members may read teammates' runs, schedules and searches. */
  membersReadTeamWork: boolean;
}

/**
 * Who is calling, resolved before the MCP handler runs. It travels to the handler as
 * `authInfo.extra.caller` so the tool catalog can be built once and read the caller from each
 * request (ARCHITECTURE.md, Rules the code keeps: the catalog is built once). Two kinds:
 * - `member`: a person in a workspace, through an OAuth grant (team policy, write caps, audit by person);
 * - `upstream`: an upstream API user acting directly with their own token and user id (the two upstream
 *   headers on /mcp, or the local stdio server): no person, grant, workspace or team, so no team policy.
 */
export type Caller = MemberCaller | UpstreamUserCaller;

interface CallerBase {
  /**
   * What the server remembers per connection is keyed by this (the cancellation registry, what a
   * 2025-era client declared at initialize): the grant's id, or `upstream:` and the upstream user's key.
   */
  connectionKey: string;
  /** The OAuth client's id, or for an upstream user the way in (`upstream-headers`, `upstream-stdio`). */
  clientId: string;
  scopes: readonly Scope[];
}

export interface MemberCaller extends CallerBase {
  kind: 'member';
  grantId: string;
  userId: string;
  workspaceId: string;
  /** A connected app's grant, or an access token a person made for automation (a grant too). */
  grantKind: 'oauth' | 'access_token';
  /** The toolsets and read-only switch chosen for the grant (at consent, or for the access token). */
  selection: ToolSelection;
  team: CallerTeam;
  /**
   * Decrypted for this request only, on first read; null when the workspace has no linked credential.
   */
  readonly upstream: { token: string; userId: string } | null;
}

export interface UpstreamUserCaller extends CallerBase {
  kind: 'upstream';
  /** How the credentials arrived: the upstream headers on /mcp, or the stdio server's environment. */
  via: 'headers' | 'stdio';
  /**
   * Names this upstream user in the audit trail and per-connection memory: a keyed hash of their token
   * and user id (never the token itself).
   */
  key: string;
  readonly upstream: { token: string; userId: string };
}

/** Who an audit row names for this caller: the person, workspace and app; or the upstream user's key. */
export function auditIdentity(caller: Caller): {
  userId: string;
  workspaceId: string | null;
  clientId: string;
} {
  return caller.kind === 'member'
    ? { userId: caller.userId, workspaceId: caller.workspaceId, clientId: caller.clientId }
    : { userId: `upstream:${caller.key}`, workspaceId: null, clientId: caller.clientId };
}
