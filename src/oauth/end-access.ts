import { and, eq, isNull } from 'drizzle-orm';
import { endAllSessions } from '../accounts/sessions.js';
import type { Store } from '../db/store/index.js';
import { revokeGrant } from './grants.js';

/** Why a person's access ended: the reason each revoked grant carries in the audit trail. */
export type AccessEndReason = 'password_reset' | 'password_changed' | 'signed_out_everywhere';

export interface EndedAccess {
  sessions: number;
  /** Connected apps (grants) disconnected. */
  apps: number;
}

/**
 * Ends what a person is signed in with: their browser sessions (all, or all but `keepSession`, the
 * one making the change) and, unless `keepApps`, every connected app in every workspace. Each grant
 * is revoked with every token of every family in it, and the caches that may hold its tokens'
 * answers are told (revokeGrant), so an access token is refused on its next request on any instance
 * and a refresh token no longer refreshes. Codes issued but not yet exchanged are spent too, or an
 * app halfway through connecting would get a grant after the change. Give it the transaction that
 * made the change (a new password), so both commit together.
 */
export async function endAccess(
  db: Store,
  userId: string,
  options: { reason: AccessEndReason; keepSession?: string | undefined; keepApps?: boolean },
  now = Date.now(),
): Promise<EndedAccess> {
  const sessions = await endAllSessions(db, userId, options.keepSession);
  if (options.keepApps) return { sessions, apps: 0 };
  const { oauthGrants, oauthCodes } = db.t;
  await db.orm
    .update(oauthCodes)
    .set({ usedAt: now })
    .where(and(eq(oauthCodes.userId, userId), isNull(oauthCodes.usedAt)));
  const live = await db.orm
    .select({ id: oauthGrants.id })
    .from(oauthGrants)
    .where(and(eq(oauthGrants.userId, userId), isNull(oauthGrants.revokedAt)));
  for (const grant of live) await revokeGrant(db, grant.id, options.reason, now);
  return { sessions, apps: live.length };
}
