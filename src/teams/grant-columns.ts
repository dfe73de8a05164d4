import type { Tables } from '../db/store/index.js';

/**
 * What every list of grants shows of one (a connected app, an access token): the grant, its workspace
 * and its person. A query selecting these joins workspaces and users on the grant.
 */
export function grantColumns(t: Tables) {
  const { oauthGrants, users, workspaces } = t;
  return {
    grantId: oauthGrants.id,
    workspaceId: oauthGrants.workspaceId,
    workspaceName: workspaces.name,
    userId: oauthGrants.userId,
    userEmail: users.email,
    scopes: oauthGrants.scopes,
    toolsets: oauthGrants.toolsets,
    readOnly: oauthGrants.readOnly,
    createdAt: oauthGrants.createdAt,
    lastUsedAt: oauthGrants.lastUsedAt,
  };
}
