import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * State every instance must share, kept here rather than in one process's memory (issue 19): on one
 * SQLite file there is one process, but the same code runs on PostgreSQL behind many.
 */

/**
 * Rate-limit counters: events per key in fixed windows; a sliding window is estimated from the
 * current and the previous one (accounts/rate-limits.ts). The key is an HMAC of the limiter's name
 * and what it counts (an email, an IP address), never the value itself.
 */
export const rateLimitHits = sqliteTable(
  'rate_limit_hits',
  {
    key: text('key').notNull(),
    windowStart: integer('window_start').notNull(),
    hits: integer('hits').notNull(),
    /** When the row stops mattering (the end of the window after its own): housekeeping deletes it. */
    expiresAt: integer('expires_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.key, t.windowStart] }),
    index('rate_limit_hits_expires_idx').on(t.expiresAt),
  ],
);

/**
 * Tool calls that have been running a while (waiting for an upstream job), per instance, so a
 * `notifications/cancelled` received by any instance finds the one call it names (mcp/cancellation/inflight.ts).
 * `request_key` is the JSON-RPC request id with its type (ids are unique only per client session).
 */
export const waitingCalls = sqliteTable(
  'waiting_calls',
  {
    id: text('id').primaryKey(),
    instanceId: text('instance_id').notNull(),
    grantId: text('grant_id').notNull(),
    requestKey: text('request_key').notNull(),
    createdAt: integer('created_at').notNull(),
    /** A row an instance could not delete (it crashed) stops counting after this. */
    expiresAt: integer('expires_at').notNull(),
  },
  (t) => [
    index('waiting_calls_request_idx').on(t.grantId, t.requestKey),
    index('waiting_calls_expires_idx').on(t.expiresAt),
  ],
);
