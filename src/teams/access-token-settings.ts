import { and, eq, isNull } from 'drizzle-orm';
import { first, type Store, workspaceSubject } from '../db/store/index.js';
import { revokeGrant } from '../oauth/grants.js';
import { recordTeamEvent } from './events.js';
import { deny, inTransaction, type Outcome } from './outcome.js';
import { actorIn } from './teams.js';

/** The longest lifetime a workspace may allow. */
export const TOKEN_MAX_DAYS_LIMIT = 365;

/** A workspace's rules for access tokens: whether members may make them, and their longest lifetime. */
export interface AccessTokenSettings {
  allowed: boolean;
  maxDays: number;
}

export async function getAccessTokenSettings(db: Store, workspaceId: string): Promise<AccessTokenSettings> {
  const { workspaces } = db.t;
  const row = await first(
    db.orm
      .select({ allowed: workspaces.accessTokensAllowed, maxDays: workspaces.accessTokenMaxDays })
      .from(workspaces)
      .where(eq(workspaces.id, workspaceId)),
  );
  return row ?? { allowed: true, maxDays: 90 };
}

/**
 * An owner or admin sets whether members may make access tokens and their longest lifetime. Turning
 * them off revokes every live one of the workspace at once; a lower maximum shortens those already
 * made (the bearer check reads it with each token). Audited as a team settings change.
 */
export function setAccessTokenSettings(
  db: Store,
  workspaceId: string,
  actorId: string,
  settings: { allowed: boolean; maxDays: string },
): Promise<Outcome<{ changed: boolean; revoked: number }>> {
  return inTransaction(db, async (tx) => {
    const team = await actorIn(tx, workspaceId, actorId, 'admin');
    if (team.kind !== 'team') deny(400, 'A personal workspace keeps the default access token settings.');
    const maxDays = /^\d{1,4}$/.test(settings.maxDays.trim()) ? Number(settings.maxDays.trim()) : Number.NaN;
    if (!(maxDays >= 1 && maxDays <= TOKEN_MAX_DAYS_LIMIT))
      deny(
        400,
        `Longest access token lifetime: a whole number of days from 1 to ${TOKEN_MAX_DAYS_LIMIT}.`,
        'max_days',
      );
    const before = await getAccessTokenSettings(tx, workspaceId);
    if (before.allowed === settings.allowed && before.maxDays === maxDays)
      return { changed: false, revoked: 0 };
    const { workspaces, oauthGrants } = tx.t;
    await tx.orm
      .update(workspaces)
      .set({ accessTokensAllowed: settings.allowed, accessTokenMaxDays: maxDays, updatedAt: Date.now() })
      .where(eq(workspaces.id, workspaceId));
    await tx.invalidate(workspaceSubject(workspaceId));
    let revoked = 0;
    if (!settings.allowed) {
      const live = await tx.orm
        .select({ id: oauthGrants.id })
        .from(oauthGrants)
        .where(
          and(
            eq(oauthGrants.workspaceId, workspaceId),
            eq(oauthGrants.kind, 'access_token'),
            isNull(oauthGrants.revokedAt),
          ),
        );
      for (const grant of live) await revokeGrant(tx, grant.id, 'access_tokens_turned_off');
      revoked = live.length;
    }
    await recordTeamEvent(tx, {
      kind: 'team_settings_changed',
      workspaceId,
      actorId,
      detail: { accessTokensAllowed: settings.allowed, accessTokenMaxDays: maxDays, tokensRevoked: revoked },
    });
    return { changed: true, revoked };
  });
}
