import { eq } from 'drizzle-orm';
import { first, type Store, workspaceSubject } from '../db/store/index.js';
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
  /** Members may create access tokens for automation (access-token-settings.ts changes it). */
  accessTokensAllowed: boolean;
  /** The longest an access token lives, in days. */
  accessTokenMaxDays: number;
}

export async function getTeamSettings(db: Store, workspaceId: string): Promise<TeamSettings> {
  const { workspaces } = db.t;
  const row = await first(
    db.orm
      .select({
        membersReadTeamWork: workspaces.membersReadTeamWork,
        accessTokensAllowed: workspaces.accessTokensAllowed,
        accessTokenMaxDays: workspaces.accessTokenMaxDays,
      })
      .from(workspaces)
      .where(eq(workspaces.id, workspaceId)),
  );
  return row ?? { membersReadTeamWork: true, accessTokensAllowed: true, accessTokenMaxDays: 90 };
}

/** Owners and admins change the team's settings; applies from every member's next tool call. */
export function setTeamSettings(
  db: Store,
  workspaceId: string,
  actorId: string,
  settings: Pick<TeamSettings, 'membersReadTeamWork'>,
): Promise<Outcome<{ changed: boolean }>> {
  return inTransaction(db, async (tx) => {
    const { workspaces } = tx.t;
    const team = await actorIn(tx, workspaceId, actorId, 'admin');
    if (team.kind !== 'team') deny(400, 'A personal workspace has no other members to share with.');
    const before = await getTeamSettings(tx, workspaceId);
    if (before.membersReadTeamWork === settings.membersReadTeamWork) return { changed: false };
    await tx.orm
      .update(workspaces)
      .set({ membersReadTeamWork: settings.membersReadTeamWork, updatedAt: Date.now() })
      .where(eq(workspaces.id, workspaceId));
    await tx.invalidate(workspaceSubject(workspaceId));
    await recordTeamEvent(tx, {
      kind: 'team_settings_changed',
      workspaceId,
      actorId,
      detail: { membersReadTeamWork: settings.membersReadTeamWork },
    });
    return { changed: true };
  });
}
