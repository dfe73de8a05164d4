import type { Db } from '../../db/client.js';
import { memberScopeCeiling } from '../../oauth/consents.js';
import type { Scope } from '../../oauth/scopes.js';
import { type ConnectedApp, listAppsForUser } from '../../teams/apps.js';

export interface AppWithPermissions extends ConnectedApp {
  /** What the app can do now: granted ∩ the member's ceiling (what src/oauth/bearer.ts enforces). */
  effective: Scope[];
  /** Granted, but outside the ceiling: refused at every call until an admin widens it. */
  blocked: Scope[];
}

/** The user's connected apps with what each may actually do, newest first. */
export function connectedAppsOf(db: Db, userId: string): AppWithPermissions[] {
  const ceilings = new Map<string, Set<Scope> | null>();
  return listAppsForUser(db, userId).map((app) => {
    if (!ceilings.has(app.workspaceId))
      ceilings.set(app.workspaceId, memberScopeCeiling(db, app.workspaceId, userId));
    const ceiling = ceilings.get(app.workspaceId) ?? null;
    const effective = ceiling ? app.scopes.filter((s) => ceiling.has(s)) : [...app.scopes];
    return { ...app, effective, blocked: app.scopes.filter((s) => !effective.includes(s)) };
  });
}
