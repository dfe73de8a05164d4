import { asc, eq } from 'drizzle-orm';
import { endAllSessions } from '../../accounts/sessions.js';
import { createUser, emailProblem, normaliseEmail } from '../../accounts/users.js';
import { recordAudit } from '../../audit/record.js';
import type { Db } from '../../db/client.js';
import { users } from '../../db/schema/index.js';
import { hashPassword, passwordProblem, passwordProblemMessage } from '../../security/passwords.js';
import { CliError, type CliIo, withDatabase, writeLine } from '../context.js';
import { type PasswordOptions, readNewPassword } from '../password.js';

/** The normalised address, or a CliError naming what is wrong with it. */
export function validEmail(raw: string): string {
  const email = normaliseEmail(raw);
  const problem = emailProblem(email);
  if (problem) throw new CliError(`invalid email ${JSON.stringify(raw)}: ${problem}`);
  return email;
}

/** The user with this address, or a CliError saying there is none. */
export function findUserByEmail(db: Db, raw: string): { id: string; email: string } {
  const email = validEmail(raw);
  const user = db
    .select({ id: users.id, email: users.email })
    .from(users)
    .where(eq(users.email, email))
    .get();
  if (!user) throw new CliError(`no user with email ${email}`);
  return user;
}

async function acceptablePassword(io: CliIo, options: PasswordOptions, email: string): Promise<string> {
  const password = await readNewPassword(io, options);
  const problem = passwordProblem(password, email);
  if (problem) throw new CliError(`password refused: ${passwordProblemMessage(problem)}`);
  return password;
}

export async function createUserCommand(
  io: CliIo,
  rawEmail: string,
  options: PasswordOptions,
): Promise<void> {
  const email = validEmail(rawEmail);
  const password = await acceptablePassword(io, options, email);
  await withDatabase(io, async (db) => {
    const result = await createUser(db, { email, password });
    if (!result.ok) {
      throw new CliError(
        result.reason === 'email_taken' ? `a user with email ${email} already exists` : result.reason,
      );
    }
    writeLine(io.stdout, `created user ${result.user.email} (id ${result.user.id})`);
  });
}

export async function resetPasswordCommand(
  io: CliIo,
  rawEmail: string,
  options: PasswordOptions,
): Promise<void> {
  // Look the user up before asking for a password, so a typo fails before anything is typed.
  const email = validEmail(rawEmail);
  await withDatabase(io, async (db) => {
    const user = findUserByEmail(db, email);
    const password = await acceptablePassword(io, options, user.email);
    const passwordHash = await hashPassword(password);
    const now = Date.now();
    const ended = db.transaction((tx) => {
      tx.update(users).set({ passwordHash, updatedAt: now }).where(eq(users.id, user.id)).run();
      const count = endAllSessions(tx as unknown as Db, user.id);
      recordAudit(
        tx,
        { kind: 'password_reset', userId: user.id, detail: { by: 'cli', sessionsEnded: count } },
        now,
      );
      return count;
    });
    writeLine(
      io.stdout,
      `password reset for ${user.email}; ended ${ended} session${ended === 1 ? '' : 's'} (sign in again)`,
    );
  });
}

export async function listUsersCommand(io: CliIo, options: { json?: boolean }): Promise<void> {
  await withDatabase(io, (db) => {
    const rows = db
      .select({ id: users.id, email: users.email, createdAt: users.createdAt, disabledAt: users.disabledAt })
      .from(users)
      .orderBy(asc(users.createdAt))
      .all();
    if (options.json) {
      writeLine(
        io.stdout,
        JSON.stringify(
          rows.map((r) => ({
            id: r.id,
            email: r.email,
            createdAt: new Date(r.createdAt).toISOString(),
            disabled: r.disabledAt !== null,
          })),
          null,
          2,
        ),
      );
      return;
    }
    if (!rows.length) writeLine(io.stdout, 'no users');
    for (const r of rows) {
      writeLine(
        io.stdout,
        `${r.email}  id ${r.id}  created ${new Date(r.createdAt).toISOString()}${r.disabledAt !== null ? '  disabled' : ''}`,
      );
    }
  });
}
