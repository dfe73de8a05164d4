import type { Store } from '../db/store/index.js';
import { memberScopeCeiling } from '../oauth/consents.js';
import type { Scope } from '../oauth/scopes.js';
import { type ConnectedApp, listAppsForUser, listAppsForWorkspace } from './apps.js';

export interface AppWithPermissions extends ConnectedApp {
  /** What the app can do now: granted ∩ the member's ceiling (what mcp/auth/authenticate.ts enforces). */
  effective: Scope[];
  /** Granted, but outside the ceiling: refused at every call until an admin widens it. */
  blocked: Scope[];
}

/** Each app's effective and blocked permissions, reading each member's ceiling once. */
async function withPermissions(db: Store, apps: ConnectedApp[]): Promise<AppWithPermissions[]> {
  const ceilings = new Map<string, Set<Scope> | null>();
  const out: AppWithPermissions[] = [];
  for (const app of apps) {
    const key = `${app.workspaceId}\0${app.userId}`;
    if (!ceilings.has(key)) ceilings.set(key, await memberScopeCeiling(db, app.workspaceId, app.userId));
    const ceiling = ceilings.get(key) ?? null;
    const effective = ceiling ? app.scopes.filter((s) => ceiling.has(s)) : [...app.scopes];
    out.push({ ...app, effective, blocked: app.scopes.filter((s) => !effective.includes(s)) });
  }
  return out;
}

/** The user's connected apps with what each may actually do, newest first. */
export async function connectedAppsOf(db: Store, userId: string): Promise<AppWithPermissions[]> {
  return withPermissions(db, await listAppsForUser(db, userId));
}

/** Every connected app of the workspace (admin view) with what each may actually do, newest first. */
export async function workspaceAppsWithPermissions(
  db: Store,
  workspaceId: string,
): Promise<AppWithPermissions[]> {
  return withPermissions(db, await listAppsForWorkspace(db, workspaceId));
}
