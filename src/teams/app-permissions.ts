import type { Db } from '../db/client.js';
import { memberScopeCeiling } from '../oauth/consents.js';
import type { Scope } from '../oauth/scopes.js';
import { type ConnectedApp, listAppsForUser, listAppsForWorkspace } from './apps.js';

export interface AppWithPermissions extends ConnectedApp {
  /** What the app can do now: granted ∩ the member's ceiling (what mcp/authenticate.ts enforces). */
  effective: Scope[];
  /** Granted, but outside the ceiling: refused at every call until an admin widens it. */
  blocked: Scope[];
}

/** Each app's effective and blocked permissions, reading each member's ceiling once. */
function withPermissions(db: Db, apps: ConnectedApp[]): AppWithPermissions[] {
  const ceilings = new Map<string, Set<Scope> | null>();
  return apps.map((app) => {
    const key = `${app.workspaceId}\0${app.userId}`;
    if (!ceilings.has(key)) ceilings.set(key, memberScopeCeiling(db, app.workspaceId, app.userId));
    const ceiling = ceilings.get(key) ?? null;
    const effective = ceiling ? app.scopes.filter((s) => ceiling.has(s)) : [...app.scopes];
    return { ...app, effective, blocked: app.scopes.filter((s) => !effective.includes(s)) };
  });
}

/** The user's connected apps with what each may actually do, newest first. */
export function connectedAppsOf(db: Db, userId: string): AppWithPermissions[] {
  return withPermissions(db, listAppsForUser(db, userId));
}

/** Every connected app of the workspace (admin view) with what each may actually do, newest first. */
export function workspaceAppsWithPermissions(db: Db, workspaceId: string): AppWithPermissions[] {
  return withPermissions(db, listAppsForWorkspace(db, workspaceId));
}
