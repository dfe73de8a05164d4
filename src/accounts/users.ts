import { eq } from 'drizzle-orm';
import { z } from 'zod';
import { first, isUniqueViolation, type Store } from '../db/store/index.js';
import { dummyPasswordHash, hashPassword, needsRehash, verifyPassword } from '../security/passwords.js';
import { newId } from '../security/tokens.js';
import { recordAccountEvent } from './audit.js';
import { consumeInvite, type UsableInvite } from './invites.js';
import { createPersonalWorkspace } from './workspaces.js';

/** RFC 5321 limits a forward path to 256 octets including the brackets: 254 for the address. */
export const EMAIL_MAX_LENGTH = 254;

export interface User {
  id: string;
  email: string;
}

/** Trimmed and lower-cased: the form every lookup and the unique index use. */
export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

const emailSchema = z.email().max(EMAIL_MAX_LENGTH);

/** Null when the (normalised) address is acceptable, else a sentence for the form. */
export function emailProblem(email: string): string | null {
  if (!email) return 'Enter your email address.';
  if (email.length > EMAIL_MAX_LENGTH) return `An email address has at most ${EMAIL_MAX_LENGTH} characters.`;
  if (!emailSchema.safeParse(email).success) return 'Enter an email address like name@example.com.';
  return null;
}

export type CreateUserResult =
  | { ok: true; user: User; personalWorkspaceId: string }
  | { ok: false; reason: 'email_taken' | 'invite_used_up' };

/**
 * Creates the user, their personal workspace and the owner membership in one transaction (and, with
 * an invite, the membership it grants): either all of it exists afterwards or none of it. The
 * password is hashed before the transaction, which holds only database work.
 * `email` must already be normalised and validated, `password` checked by passwordProblem().
 */
export async function createUser(
  db: Store,
  input: { email: string; password: string; invite?: UsableInvite | null },
  now = Date.now(),
): Promise<CreateUserResult> {
  const passwordHash = await hashPassword(input.password);
  const user: User = { id: newId(), email: input.email };
  const personalWorkspaceId = newId();
  try {
    return await db.transaction(async (tx) => {
      await tx.orm.insert(tx.t.users).values({ ...user, passwordHash, createdAt: now, updatedAt: now });
      await createPersonalWorkspace(tx, {
        id: personalWorkspaceId,
        userId: user.id,
        name: 'Personal',
        now,
      });
      if (input.invite && !(await consumeInvite(tx, input.invite, user.id, now))) throw new InviteUsedUp();
      await recordAccountEvent(
        tx,
        {
          kind: 'account_created',
          userId: user.id,
          workspaceId: personalWorkspaceId,
          ...(input.invite ? { detail: { inviteId: input.invite.id } } : {}),
        },
        now,
      );
      return { ok: true as const, user, personalWorkspaceId };
    });
  } catch (error) {
    if (isUniqueViolation(error)) return { ok: false, reason: 'email_taken' };
    if (error instanceof InviteUsedUp) return { ok: false, reason: 'invite_used_up' };
    throw error;
  }
}

/** Thrown inside the sign-up transaction to roll it back when the invite was spent meanwhile. */
class InviteUsedUp extends Error {}

/**
 * The user whose email and password these are, or null. Unknown emails verify against a dummy hash
 * so a failure takes the same time either way; disabled accounts fail the same way too. A hash made
 * with weaker parameters than today's is upgraded on success.
 */
export async function authenticate(db: Store, email: string, password: string): Promise<User | null> {
  const { users } = db.t;
  const row = await first(
    db.orm
      .select({
        id: users.id,
        email: users.email,
        passwordHash: users.passwordHash,
        disabledAt: users.disabledAt,
      })
      .from(users)
      .where(eq(users.email, normaliseEmail(email))),
  );
  const ok = await verifyPassword(row?.passwordHash ?? (await dummyPasswordHash()), password);
  if (!row || !ok || row.disabledAt !== null) return null;
  if (needsRehash(row.passwordHash)) {
    const upgraded = await hashPassword(password);
    await db.orm
      .update(users)
      .set({ passwordHash: upgraded, updatedAt: Date.now() })
      .where(eq(users.id, row.id));
  }
  return { id: row.id, email: row.email };
}

/** Replaces a person's password hash (hash outside any transaction; this is the write only). */
export async function setPasswordHash(db: Store, userId: string, passwordHash: string, now: number) {
  const { users } = db.t;
  await db.orm.update(users).set({ passwordHash, updatedAt: now }).where(eq(users.id, userId));
}

export async function getUserById(db: Store, id: string): Promise<User | null> {
  const { users } = db.t;
  return (
    (await first(db.orm.select({ id: users.id, email: users.email }).from(users).where(eq(users.id, id)))) ??
    null
  );
}
