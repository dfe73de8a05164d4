import { eq } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '../db/client.js';
import { users } from '../db/schema/index.js';
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
 * password is hashed before the transaction so the write lock is held for microseconds.
 * `email` must already be normalised and validated, `password` checked by passwordProblem().
 */
export async function createUser(
  db: Db,
  input: { email: string; password: string; invite?: UsableInvite | null },
  now = Date.now(),
): Promise<CreateUserResult> {
  const passwordHash = await hashPassword(input.password);
  const user: User = { id: newId(), email: input.email };
  const personalWorkspaceId = newId();
  try {
    return db.transaction((tx) => {
      tx.insert(users)
        .values({ ...user, passwordHash, createdAt: now, updatedAt: now })
        .run();
      createPersonalWorkspace(tx, {
        id: personalWorkspaceId,
        userId: user.id,
        name: 'Personal',
        now,
      });
      if (input.invite && !consumeInvite(tx, input.invite, user.id, now)) throw new InviteUsedUp();
      recordAccountEvent(
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

function isUniqueViolation(error: unknown): boolean {
  for (let e: unknown = error; e; e = (e as { cause?: unknown }).cause) {
    const code = (e as { code?: unknown }).code;
    if (code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') return true;
  }
  return false;
}

/**
 * The user whose email and password these are, or null. Unknown emails verify against a dummy hash
 * so a failure takes the same time either way; disabled accounts fail the same way too. A hash made
 * with weaker parameters than today's is upgraded on success.
 */
export async function authenticate(db: Db, email: string, password: string): Promise<User | null> {
  const row = db
    .select({
      id: users.id,
      email: users.email,
      passwordHash: users.passwordHash,
      disabledAt: users.disabledAt,
    })
    .from(users)
    .where(eq(users.email, normaliseEmail(email)))
    .get();
  const ok = await verifyPassword(row?.passwordHash ?? (await dummyPasswordHash()), password);
  if (!row || !ok || row.disabledAt !== null) return null;
  if (needsRehash(row.passwordHash)) {
    const upgraded = await hashPassword(password);
    db.update(users).set({ passwordHash: upgraded, updatedAt: Date.now() }).where(eq(users.id, row.id)).run();
  }
  return { id: row.id, email: row.email };
}

export function getUserById(db: Db, id: string): User | null {
  return db.select({ id: users.id, email: users.email }).from(users).where(eq(users.id, id)).get() ?? null;
}
