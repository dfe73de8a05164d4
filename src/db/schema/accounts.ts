import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/** Timestamps are integer milliseconds since the epoch: portable to libSQL and Postgres (bigint). */
export const users = sqliteTable('users', {
  id: text('id').primaryKey(),
  /** Normalised (trimmed, lower-cased) address; unique. */
  email: text('email').notNull().unique(),
  /** argon2id PHC string; never the password. */
  passwordHash: text('password_hash').notNull(),
  createdAt: integer('created_at').notNull(),
  updatedAt: integer('updated_at').notNull(),
  disabledAt: integer('disabled_at'),
});

/** Browser sessions. The id is only ever stored as its SHA-256. */
export const sessions = sqliteTable(
  'sessions',
  {
    idHash: text('id_hash').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: integer('created_at').notNull(),
    lastSeenAt: integer('last_seen_at').notNull(),
    expiresAt: integer('expires_at').notNull(),
    userAgent: text('user_agent'),
  },
  (t) => [index('sessions_user_idx').on(t.userId), index('sessions_expires_idx').on(t.expiresAt)],
);
