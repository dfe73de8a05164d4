import type { Scope } from '../oauth/scopes.js';

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
  /**
   * Decrypted for this request only, on first read; null when the workspace has no linked credential.
   */
  readonly upstream: { token: string; userId: string } | null;
}
