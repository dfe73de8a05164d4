import { eq } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { workspaces } from '../db/schema/index.js';
import { recordTeamEvent } from './events.js';
import { deny, inTransaction, type Outcome } from './outcome.js';
import { actorIn } from './teams.js';

/** Settings that apply to every member of a team (not one member's limits). */
export interface TeamSettings {
  /**
   * Plain members may read teammates' agent runs, schedules and searches (default yes). Off, each
   * member reads and lists only their own; owners and admins always read everything. Changing runs
   * and schedules is owner/admin-only for others' items either way.
   */
  membersReadTeamWork: boolean;
}

export function getTeamSettings(db: Db, workspaceId: string): TeamSettings {
  const row = db
    .select({ membersReadTeamWork: workspaces.membersReadTeamWork })
    .from(workspaces)
    .where(eq(workspaces.id, workspaceId))
    .get();
  return { membersReadTeamWork: row?.membersReadTeamWork ?? true };
}

/** Owners and admins change the team's settings; applies from every member's next tool call. */
export function setTeamSettings(
  db: Db,
  workspaceId: string,
  actorId: string,
  settings: TeamSettings,
): Outcome<{ changed: boolean }> {
  return inTransaction(db, (tx) => {
    const team = actorIn(tx, workspaceId, actorId, 'admin');
    if (team.kind !== 'team') deny(400, 'A personal workspace has no other members to share with.');
    const before = getTeamSettings(tx, workspaceId);
    if (before.membersReadTeamWork === settings.membersReadTeamWork) return { changed: false };
    tx.update(workspaces)
      .set({ membersReadTeamWork: settings.membersReadTeamWork, updatedAt: Date.now() })
      .where(eq(workspaces.id, workspaceId))
      .run();
    recordTeamEvent(tx, {
      kind: 'team_settings_changed',
      workspaceId,
      actorId,
      detail: { membersReadTeamWork: settings.membersReadTeamWork },
    });
    return { changed: true };
  });
}
