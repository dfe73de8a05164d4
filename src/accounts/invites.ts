import { and, eq, gt, isNull, or, sql } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { invites, workspaceMembers } from '../db/schema/index.js';
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

type Runner = Pick<Db, 'select' | 'insert' | 'update'>;

/** The invite a token names, if it is not revoked, not expired and has uses left. */
export function findUsableInvite(db: Runner, token: string, now = Date.now()): UsableInvite | null {
  if (!token || token.length > 200) return null;
  const row = db
    .select({ id: invites.id, workspaceId: invites.workspaceId, role: invites.role })
    .from(invites)
    .where(
      and(
        eq(invites.tokenHash, hashToken(token)),
        isNull(invites.revokedAt),
        gt(invites.expiresAt, now),
        or(isNull(invites.maxUses), sql`${invites.uses} < ${invites.maxUses}`),
      ),
    )
    .get();
  return row ?? null;
}

/**
 * Spends one use of the invite and adds the new user to its workspace. Runs inside the sign-up
 * transaction; returns false (and the caller rolls back) when the invite was used up meanwhile.
 */
export function consumeInvite(db: Runner, invite: UsableInvite, userId: string, now: number): boolean {
  const spent = db
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
    .run();
  if (spent.changes !== 1) return false;
  db.insert(workspaceMembers)
    .values({ workspaceId: invite.workspaceId, userId, role: invite.role, createdAt: now })
    .onConflictDoNothing()
    .run();
  return true;
}
