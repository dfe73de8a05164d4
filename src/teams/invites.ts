import { and, desc, eq, isNull } from 'drizzle-orm';
import { consumeInvite } from '../accounts/invites.js';
import { changed, first, type Store } from '../db/store/index.js';
import { hashToken, newId, newToken } from '../security/tokens.js';
import { recordTeamEvent } from './events.js';
import { deny, inTransaction, lockWorkspace, type Outcome } from './outcome.js';
import { actorIn } from './teams.js';

export const INVITE_MAX_DAYS = 30;
export const INVITE_MAX_USES = 1000;
export const INVITE_NOTE_MAX_LENGTH = 200;
/** Invite tokens are `sim_iv_` + 43 characters; anything far longer is not worth a lookup. */
const TOKEN_MAX_LENGTH = 200;

export interface InviteInput {
  role: string;
  /** "1" single-use, "" unlimited until expiry, or a number of uses. */
  maxUses: string;
  expiresInDays: string;
  /** Whom the invite is for, in the admin's words (optional; only the team's admins see it). */
  note?: string;
}

export interface InviteErrors {
  role?: string;
  maxUses?: string;
  expiresInDays?: string;
  note?: string;
}

/** The note as stored: trimmed, inner whitespace runs as one space, null when empty. */
function inviteNote(raw: string | undefined): { note: string | null; problem: string | null } {
  const note = (raw ?? '').trim().replace(/\s+/g, ' ');
  if (!note) return { note: null, problem: null };
  if (note.length > INVITE_NOTE_MAX_LENGTH)
    return { note, problem: `A note has at most ${INVITE_NOTE_MAX_LENGTH} characters.` };
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
  if (/[\u0000-\u001f\u007f]/.test(note))
    return { note, problem: 'A note cannot contain control characters.' };
  return { note, problem: null };
}

/**
 * Creates an invite link for the team. The token is returned once, for the admin to copy; only its
 * SHA-256 is stored.
 */
export async function createInvite(
  db: Store,
  workspaceId: string,
  actorId: string,
  input: InviteInput,
  now = Date.now(),
): Promise<
  | Outcome<{ id: string; token: string; expiresAt: number; note: string | null }>
  | { ok: false; status: 400; message: string; errors: InviteErrors }
> {
  const errors: InviteErrors = {};
  if (input.role !== 'member' && input.role !== 'admin') errors.role = 'Choose member or admin.';
  const usesText = input.maxUses.trim();
  if (usesText && (!/^\d{1,4}$/.test(usesText) || Number(usesText) < 1 || Number(usesText) > INVITE_MAX_USES))
    errors.maxUses = `Enter a number of uses from 1 to ${INVITE_MAX_USES}, or leave it empty for unlimited.`;
  const daysText = input.expiresInDays.trim();
  if (!/^\d{1,2}$/.test(daysText) || Number(daysText) < 1 || Number(daysText) > INVITE_MAX_DAYS)
    errors.expiresInDays = `Enter a number of days from 1 to ${INVITE_MAX_DAYS}.`;
  const { note, problem } = inviteNote(input.note);
  if (problem) errors.note = problem;
  if (errors.role || errors.maxUses || errors.expiresInDays || errors.note)
    return { ok: false, status: 400, message: 'Check the highlighted fields.', errors };
  const role = input.role as 'member' | 'admin';
  const maxUses = usesText ? Number(usesText) : null;
  const expiresAt = now + Number(daysText) * 24 * 3600 * 1000;
  const token = newToken('invite');
  const id = newId();
  return inTransaction(db, async (tx) => {
    const team = await actorIn(tx, workspaceId, actorId, 'admin');
    if (team.kind !== 'team') deny(400, 'Invite people to a team, not to a personal workspace.');
    await tx.orm.insert(tx.t.invites).values({
      id,
      workspaceId,
      tokenHash: hashToken(token),
      role,
      maxUses,
      expiresAt,
      createdBy: actorId,
      createdAt: now,
      note,
    });
    await recordTeamEvent(
      tx,
      { kind: 'invite_created', workspaceId, actorId, detail: { invite: id, role, maxUses, expiresAt } },
      now,
    );
    return { id, token, expiresAt, note };
  });
}

export interface InviteView {
  id: string;
  role: 'admin' | 'member';
  maxUses: number | null;
  uses: number;
  expiresAt: number;
  createdAt: number;
  createdByEmail: string | null;
  /** Whom it is for, as the admin noted it. */
  note: string | null;
  state: 'usable' | 'expired' | 'used_up' | 'revoked';
}

function stateOf(
  row: { revokedAt: number | null; expiresAt: number; maxUses: number | null; uses: number },
  now: number,
) {
  if (row.revokedAt !== null) return 'revoked' as const;
  if (row.expiresAt <= now) return 'expired' as const;
  if (row.maxUses !== null && row.uses >= row.maxUses) return 'used_up' as const;
  return 'usable' as const;
}

export async function listInvites(db: Store, workspaceId: string, now = Date.now()): Promise<InviteView[]> {
  const { invites, users } = db.t;
  const rows = await db.orm
    .select({
      id: invites.id,
      role: invites.role,
      maxUses: invites.maxUses,
      uses: invites.uses,
      expiresAt: invites.expiresAt,
      createdAt: invites.createdAt,
      revokedAt: invites.revokedAt,
      createdByEmail: users.email,
      note: invites.note,
    })
    .from(invites)
    .leftJoin(users, eq(users.id, invites.createdBy))
    .where(eq(invites.workspaceId, workspaceId))
    .orderBy(desc(invites.createdAt))
    .limit(100);
  return rows.map(({ revokedAt, ...row }) => ({ ...row, state: stateOf({ ...row, revokedAt }, now) }));
}

/** Revokes an invite of this workspace; an id from another workspace is "not found". */
export function revokeInvite(
  db: Store,
  workspaceId: string,
  actorId: string,
  inviteId: string,
): Promise<Outcome> {
  return inTransaction(db, async (tx) => {
    const { invites } = tx.t;
    await actorIn(tx, workspaceId, actorId, 'admin');
    const revoked = await changed(
      tx.orm
        .update(invites)
        .set({ revokedAt: Date.now() })
        .where(and(eq(invites.id, inviteId), eq(invites.workspaceId, workspaceId), isNull(invites.revokedAt)))
        .returning({ id: invites.id }),
    );
    if (revoked !== 1) deny(404, 'There is no such open invitation in this workspace.');
    await recordTeamEvent(tx, { kind: 'invite_revoked', workspaceId, actorId, detail: { invite: inviteId } });
    return undefined;
  });
}

export interface InviteLookup {
  id: string;
  workspaceId: string;
  workspaceName: string;
  role: 'admin' | 'member';
  state: InviteView['state'];
}

/** What an invite link names, whatever its state; null for a token that names nothing. */
export async function lookupInvite(db: Store, token: string, now = Date.now()): Promise<InviteLookup | null> {
  if (!token || token.length > TOKEN_MAX_LENGTH) return null;
  const { invites, workspaces } = db.t;
  const row = await first(
    db.orm
      .select({
        id: invites.id,
        workspaceId: invites.workspaceId,
        workspaceName: workspaces.name,
        role: invites.role,
        maxUses: invites.maxUses,
        uses: invites.uses,
        expiresAt: invites.expiresAt,
        revokedAt: invites.revokedAt,
      })
      .from(invites)
      .innerJoin(workspaces, eq(workspaces.id, invites.workspaceId))
      .where(eq(invites.tokenHash, hashToken(token))),
  );
  if (!row) return null;
  return {
    id: row.id,
    workspaceId: row.workspaceId,
    workspaceName: row.workspaceName,
    role: row.role,
    state: stateOf(row, now),
  };
}

export const INVITE_PROBLEMS: Record<Exclude<InviteView['state'], 'usable'> | 'unknown', string> = {
  unknown: 'This invitation link is not valid. Check that you copied all of it, or ask for a new one.',
  expired: 'This invitation has expired. Ask a team admin for a new link.',
  used_up: 'This invitation has already been used. Ask a team admin for a new link.',
  revoked: 'This invitation was withdrawn. Ask a team admin for a new link.',
};

/**
 * Joins the signed-in user to the invite's team, spending one use, in one transaction. Someone who is
 * already a member spends nothing. `workspaceId` is the team the accepting page showed: an invite of
 * another team is refused rather than silently joined.
 */
export function acceptInvite(
  db: Store,
  token: string,
  workspaceId: string,
  userId: string,
  now = Date.now(),
): Promise<Outcome<{ workspaceId: string; name: string; alreadyMember: boolean }>> {
  return inTransaction(db, async (tx) => {
    const { workspaceMembers } = tx.t;
    // The team's row first, like every team operation: the membership check and the join are not
    // interleaved with another accept (or a removal) of the same person.
    await lockWorkspace(tx, workspaceId);
    const invite = await lookupInvite(tx, token, now);
    if (!invite) deny(404, INVITE_PROBLEMS.unknown);
    if (invite.workspaceId !== workspaceId) {
      deny(400, 'This invitation is for another workspace than the one shown. Open the link again.');
    }
    const member = await first(
      tx.orm
        .select({ role: workspaceMembers.role })
        .from(workspaceMembers)
        .where(
          and(eq(workspaceMembers.workspaceId, invite.workspaceId), eq(workspaceMembers.userId, userId)),
        ),
    );
    if (member) return { workspaceId: invite.workspaceId, name: invite.workspaceName, alreadyMember: true };
    if (invite.state !== 'usable') deny(410, INVITE_PROBLEMS[invite.state]);
    const spent = await consumeInvite(
      tx,
      { id: invite.id, workspaceId: invite.workspaceId, role: invite.role },
      userId,
      now,
    );
    if (!spent) deny(409, INVITE_PROBLEMS.used_up);
    await recordTeamEvent(
      tx,
      {
        kind: 'invite_accepted',
        workspaceId: invite.workspaceId,
        actorId: userId,
        detail: { invite: invite.id, role: invite.role },
      },
      now,
    );
    return { workspaceId: invite.workspaceId, name: invite.workspaceName, alreadyMember: false };
  });
}
