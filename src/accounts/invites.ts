import { and, eq, gt, isNull, or, sql } from 'drizzle-orm';
import { first, type Store } from '../db/store/index.js';
import { hashToken } from '../security/tokens.js';

/**
 * The hook sign-up uses in SIGNUP=invite mode (and honours in open mode): an invite link carries a
 * token; a usable one lets its holder create an account and joins them to the inviting workspace.
 * Issuing and managing invites belongs to the team work.
 */
export interface UsableInvite {
  id: string;
  workspaceId: string;
  role: 'admin' | 'member';
}

/** The invite a token names, if it is not revoked, not expired and has uses left. */
export async function findUsableInvite(
  db: Store,
  token: string,
  now = Date.now(),
): Promise<UsableInvite | null> {
  if (!token || token.length > 200) return null;
  const { invites } = db.t;
  const row = await first(
    db.orm
      .select({ id: invites.id, workspaceId: invites.workspaceId, role: invites.role })
      .from(invites)
      .where(
        and(
          eq(invites.tokenHash, hashToken(token)),
          isNull(invites.revokedAt),
          gt(invites.expiresAt, now),
          or(isNull(invites.maxUses), sql`${invites.uses} < ${invites.maxUses}`),
        ),
      ),
  );
  return row ?? null;
}

/**
 * Spends one use of the invite and adds the new user to its workspace. Runs inside the sign-up (or
 * accept) transaction; returns false (and the caller rolls back) when the invite was used up
 * meanwhile. The spend is one conditional UPDATE: on PostgreSQL a concurrent one waits for the row
 * and re-checks `uses` once the first commits, so an invite is never spent past max_uses.
 */
export async function consumeInvite(
  db: Store,
  invite: UsableInvite,
  userId: string,
  now: number,
): Promise<boolean> {
  const { invites, workspaceMembers } = db.t;
  const spent = await db.orm
    .update(invites)
    .set({ uses: sql`${invites.uses} + 1` })
    .where(
      and(
        eq(invites.id, invite.id),
        isNull(invites.revokedAt),
        gt(invites.expiresAt, now),
        or(isNull(invites.maxUses), sql`${invites.uses} < ${invites.maxUses}`),
      ),
    )
    .returning({ id: invites.id });
  if (spent.length !== 1) return false;
  await db.orm
    .insert(workspaceMembers)
    .values({ workspaceId: invite.workspaceId, userId, role: invite.role, createdAt: now })
    .onConflictDoNothing();
  return true;
}
