import { asc, eq } from 'drizzle-orm';
import { createUser, emailProblem, normaliseEmail, setPasswordHash } from '../../accounts/users.js';
import { recordAudit } from '../../audit/record.js';
import { first, type Store } from '../../db/store/index.js';
import { endAccess } from '../../oauth/end-access.js';
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
export async function findUserByEmail(db: Store, raw: string): Promise<{ id: string; email: string }> {
  const email = validEmail(raw);
  const { users } = db.t;
  const user = await first(
    db.orm.select({ id: users.id, email: users.email }).from(users).where(eq(users.email, email)),
  );
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
  options: PasswordOptions & { keepApps?: boolean },
): Promise<void> {
  // Look the user up before asking for a password, so a typo fails before anything is typed.
  const email = validEmail(rawEmail);
  await withDatabase(io, async (db) => {
    const user = await findUserByEmail(db, email);
    const password = await acceptablePassword(io, options, user.email);
    const passwordHash = await hashPassword(password);
    const now = Date.now();
    const keepApps = options.keepApps === true;
    // A reset is what an operator does for a compromised account: the apps connected with the old
    // password (perhaps by whoever had it) end with it, unless the operator says to keep them.
    const ended = await db.transaction(async (tx) => {
      await setPasswordHash(tx, user.id, passwordHash, now);
      const access = await endAccess(tx, user.id, { reason: 'password_reset', keepApps }, now);
      await recordAudit(
        tx,
        {
          kind: 'password_reset',
          userId: user.id,
          detail: {
            by: 'cli',
            sessionsEnded: access.sessions,
            appsDisconnected: access.apps,
            appsKept: keepApps,
          },
        },
        now,
      );
      return access;
    });
    const sessions = `ended ${ended.sessions} session${ended.sessions === 1 ? '' : 's'}`;
    const apps = keepApps
      ? 'connected apps kept'
      : `disconnected ${ended.apps} connected app${ended.apps === 1 ? '' : 's'}`;
    writeLine(io.stdout, `password reset for ${user.email}; ${sessions} (sign in again); ${apps}`);
  });
}

export async function listUsersCommand(io: CliIo, options: { json?: boolean }): Promise<void> {
  await withDatabase(io, async (db) => {
    const { users } = db.t;
    const rows = await db.orm
      .select({ id: users.id, email: users.email, createdAt: users.createdAt, disabledAt: users.disabledAt })
      .from(users)
      .orderBy(asc(users.createdAt), asc(users.email));
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
