import { and, eq, lte, ne, sql } from 'drizzle-orm';
import { deleteInBatches } from '../db/batches.js';
import type { Db } from '../db/client.js';
import { sessions, users } from '../db/schema/index.js';
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
export function createSession(db: Db, userId: string, userAgent: string | null, now = Date.now()): string {
  const token = newToken('session');
  db.transaction((tx) => {
    tx.delete(sessions)
      .where(and(eq(sessions.userId, userId), lte(sessions.expiresAt, now)))
      .run();
    tx.insert(sessions)
      .values({
        idHash: hashToken(token),
        userId,
        createdAt: now,
        lastSeenAt: now,
        expiresAt: expiryFor(now, now),
        userAgent: userAgent?.slice(0, USER_AGENT_MAX) ?? null,
      })
      .run();
  });
  return token;
}

/**
 * The signed-in user for a session id, or null when it is unknown, expired, or the account is
 * disabled. One indexed lookup; the sliding expiry is pushed forward at most once a minute.
 */
export function resolveSession(db: Db, token: string, now = Date.now()): User | null {
  if (!token || token.length > 200) return null;
  const idHash = hashToken(token);
  const row = db
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
    .where(eq(sessions.idHash, idHash))
    .get();
  if (!row) return null;
  if (row.expiresAt <= now || row.disabledAt !== null) {
    db.delete(sessions).where(eq(sessions.idHash, idHash)).run();
    return null;
  }
  if (now - row.lastSeenAt >= SESSION_TOUCH_INTERVAL_MS) {
    db.update(sessions)
      .set({ lastSeenAt: now, expiresAt: expiryFor(row.createdAt, now) })
      .where(eq(sessions.idHash, idHash))
      .run();
  }
  return { id: row.userId, email: row.email };
}

/** Ends one session server-side: its id stops working at once. */
export function endSession(db: Db, token: string): void {
  db.delete(sessions)
    .where(eq(sessions.idHash, hashToken(token)))
    .run();
}

/** Ends every session of the user, or every one but `keepToken`'s. Returns how many ended. */
export function endAllSessions(db: Db, userId: string, keepToken?: string): number {
  const where = keepToken
    ? and(eq(sessions.userId, userId), ne(sessions.idHash, hashToken(keepToken)))
    : eq(sessions.userId, userId);
  return db.delete(sessions).where(where).run().changes;
}

/** The session's cookie lifetime in seconds: the absolute limit (the idle limit is enforced here). */
export const SESSION_COOKIE_MAX_AGE_S = Math.floor(SESSION_ABSOLUTE_MS / 1000);

/** Deletes sessions past their expiry, in small batches (housekeeping). */
export function purgeExpiredSessions(db: Db, now = Date.now()): number {
  return deleteInBatches(
    (batch) =>
      db
        .delete(sessions)
        .where(sql`rowid IN (SELECT rowid FROM sessions WHERE expires_at < ${now} LIMIT ${batch})`)
        .run().changes,
  );
}
