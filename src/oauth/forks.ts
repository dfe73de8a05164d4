import { and, eq, isNotNull, isNull, ne, or, sql } from 'drizzle-orm';
import { recordAudit } from '../audit/record.js';
import { grantSubject, type Store, type Tables } from '../db/store/index.js';
import { newId } from '../security/tokens.js';

type TokenRow = Tables['oauthTokens']['$inferSelect'];
type GrantRow = Tables['oauthGrants']['$inferSelect'];

/** Where a new pair goes: the family's branch, and whether its refresh token is still forked. */
export interface PairPlace {
  branch: string | null;
  forkedAt: number | null;
}

/**
 * The grace use of a refresh token (refresh.ts) forks its family: the extra pair starts a branch of
 * its own beside the chain the rotation continued. Both may refresh within the grace window (a client
 * that refreshed twice at once may still be sorting out which answer it kept); after it, at most one
 * may live. The rule: the first branch to rotate a token once the window has passed continues, and
 * every other branch ends there: its access tokens are revoked, and its refresh tokens are spent
 * (rotated, grace used), so presenting one later is reuse, which ends the whole family (RFC 9700
 * §4.14.2). A thief who replays a stolen refresh token within the window thus keeps a parallel session
 * only until one side refreshes again, and is found out when the other side does.
 *
 * Called under the grant's lock, in refreshGrant's transaction: forks and their settling are ordered
 * with every other refresh of the family, on any number of instances. Marks every live refresh token
 * of the family forked (`forked_at`): rotateLiveToken leaves forked tokens to the general path, so the
 * common rotation stays one statement and never needs to look for siblings.
 */
export async function fork(tx: Store, familyId: string, now: number): Promise<PairPlace> {
  const { oauthTokens: t } = tx.t;
  await tx.orm
    .update(t)
    .set({ forkedAt: now })
    .where(and(eq(t.familyId, familyId), eq(t.kind, 'refresh'), isNull(t.rotatedAt), isNull(t.revokedAt)));
  return { branch: newId(), forkedAt: now };
}

/**
 * Where the successor of `rotated` goes: on its branch, still forked while the window of its fork
 * lasts; once it has passed, the other branches of the family end here and the successor is an
 * ordinary token again (no branch, not forked: back to the common rotation, which writes the same).
 */
export async function settleFork(
  tx: Store,
  grant: GrantRow,
  rotated: TokenRow,
  graceMs: number,
  now: number,
): Promise<PairPlace> {
  if (rotated.forkedAt === null) return { branch: null, forkedAt: null };
  if (now - rotated.forkedAt < graceMs) return { branch: rotated.branch, forkedAt: rotated.forkedAt };
  await endOtherBranches(tx, grant, rotated, now);
  return { branch: null, forkedAt: null };
}

async function endOtherBranches(tx: Store, grant: GrantRow, kept: TokenRow, now: number): Promise<void> {
  const { oauthTokens: t } = tx.t;
  const elsewhere = and(
    eq(t.familyId, kept.familyId),
    isNull(t.revokedAt),
    kept.branch === null ? isNotNull(t.branch) : or(isNull(t.branch), ne(t.branch, kept.branch)),
  );
  const access = await tx.orm
    .update(t)
    .set({ revokedAt: now })
    .where(and(elsewhere, eq(t.kind, 'access')))
    .returning({ tokenHash: t.tokenHash });
  // Spent rather than revoked: a later use is then reuse, which ends the family, not a plain refusal.
  const refresh = await tx.orm
    .update(t)
    .set({ rotatedAt: sql`coalesce(${t.rotatedAt}, ${now})`, graceUsedAt: now })
    .where(and(elsewhere, eq(t.kind, 'refresh'), isNull(t.graceUsedAt)))
    .returning({ tokenHash: t.tokenHash });
  if (access.length === 0 && refresh.length === 0) return;
  await tx.invalidate(grantSubject(grant.id));
  await recordAudit(
    tx,
    {
      kind: 'token_branch_revoked',
      workspaceId: grant.workspaceId,
      userId: grant.userId,
      clientId: grant.clientId,
      detail: { reason: 'refresh_token_forked' },
    },
    now,
  );
}
