import { and, eq, inArray, lt, lte, ne, sql } from 'drizzle-orm';
import { deleteInBatches } from '../db/batches.js';
import { changed, type Store } from '../db/store/index.js';
import { oncePer } from '../once-per.js';
import { hashToken, newToken } from '../security/tokens.js';
import type { User } from './users.js';

/** A session ends after this long without a request… */
export const SESSION_IDLE_MS = 14 * 24 * 60 * 60 * 1000;
/** …and in any case this long after sign-in. */
export const SESSION_ABSOLUTE_MS = 30 * 24 * 60 * 60 * 1000;
/** Sliding expiry is written at most this often per session, not on every request. */
export const SESSION_TOUCH_INTERVAL_MS = 60 * 1000;
/** Longest User-Agent kept (it is only shown to the user, never trusted). */
const USER_AGENT_MAX = 256;

function expiryFor(createdAt: number, lastSeenAt: number): number {
  return Math.min(lastSeenAt + SESSION_IDLE_MS, createdAt + SESSION_ABSOLUTE_MS);
}

/**
 * Starts a session with a fresh random id (so a planted id can never be promoted: no fixation) and
 * returns the id for the cookie. Only its SHA-256 is stored. Expired sessions of the user are
 * cleared on the way.
 */
export async function createSession(
  db: Store,
  userId: string,
  userAgent: string | null,
  now = Date.now(),
): Promise<string> {
  const token = newToken('session');
  await db.transaction(async (tx) => {
    const { sessions } = tx.t;
    await tx.orm.delete(sessions).where(and(eq(sessions.userId, userId), lte(sessions.expiresAt, now)));
    await tx.orm.insert(sessions).values({
      idHash: hashToken(token),
      userId,
      createdAt: now,
      lastSeenAt: now,
      expiresAt: expiryFor(now, now),
      userAgent: userAgent?.slice(0, USER_AGENT_MAX) ?? null,
    });
  });
  return token;
}

/** The session → user query, prepared once per store (every signed-in page request runs it). */
const sessionLookup = oncePer((db: Store) => {
  const { sessions, users } = db.t;
  return db.orm
    .select({
      userId: users.id,
      email: users.email,
      disabledAt: users.disabledAt,
      createdAt: sessions.createdAt,
      lastSeenAt: sessions.lastSeenAt,
      expiresAt: sessions.expiresAt,
    })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(eq(sessions.idHash, sql.placeholder('idHash')))
    .prepare('session_lookup');
});

/**
 * The signed-in user for a session id, or null when it is unknown, expired, or the account is
 * disabled. One indexed lookup; the sliding expiry is pushed forward at most once a minute.
 */
export async function resolveSession(db: Store, token: string, now = Date.now()): Promise<User | null> {
  if (!token || token.length > 200) return null;
  const { sessions } = db.t;
  const idHash = hashToken(token);
  const [row] = await sessionLookup(db).execute({ idHash });
  if (!row) return null;
  if (row.expiresAt <= now || row.disabledAt !== null) {
    await db.orm.delete(sessions).where(eq(sessions.idHash, idHash));
    return null;
  }
  if (now - row.lastSeenAt >= SESSION_TOUCH_INTERVAL_MS) {
    await db.orm
      .update(sessions)
      .set({ lastSeenAt: now, expiresAt: expiryFor(row.createdAt, now) })
      .where(eq(sessions.idHash, idHash));
  }
  return { id: row.userId, email: row.email };
}

/** Ends one session server-side: its id stops working at once. */
export async function endSession(db: Store, token: string): Promise<void> {
  const { sessions } = db.t;
  await db.orm.delete(sessions).where(eq(sessions.idHash, hashToken(token)));
}

/** Ends every session of the user, or every one but `keepToken`'s. Returns how many ended. */
export async function endAllSessions(db: Store, userId: string, keepToken?: string): Promise<number> {
  const { sessions } = db.t;
  const where = keepToken
    ? and(eq(sessions.userId, userId), ne(sessions.idHash, hashToken(keepToken)))
    : eq(sessions.userId, userId);
  return changed(db.orm.delete(sessions).where(where).returning({ idHash: sessions.idHash }));
}

/** The session's cookie lifetime in seconds: the absolute limit (the idle limit is enforced here). */
export const SESSION_COOKIE_MAX_AGE_S = Math.floor(SESSION_ABSOLUTE_MS / 1000);

/** Deletes sessions past their expiry, in small batches (housekeeping). */
export function purgeExpiredSessions(db: Store, now = Date.now()): Promise<number> {
  return deleteInBatches(db.engine, (batch) => changed(expiredSessionsBatch(db, now, batch)));
}

/** Deletes a batch of sessions expired before `now` (sessions_expires_idx). */
export function expiredSessionsBatch(db: Store, now: number, batch: number) {
  const { sessions } = db.t;
  return db.orm
    .delete(sessions)
    .where(
      inArray(
        sessions.idHash,
        db.orm
          .select({ idHash: sessions.idHash })
          .from(sessions)
          .where(lt(sessions.expiresAt, now))
          .limit(batch),
      ),
    )
    .returning({ idHash: sessions.idHash });
}
