import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * State every instance must share, kept here rather than in one process's memory (ARCHITECTURE.md, Rules the
 * code keeps: state that matters is shared): on one SQLite file there is one process, but the same code runs
 * on PostgreSQL behind many.
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
 * `notifications/cancelled` received by any instance finds the one call it names
 * (mcp/cancellation/inflight.ts). `request_key` is the JSON-RPC request id with its type (ids are unique only
 * per client session).
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

/**
 * Long upstream work recently submitted (searches, agent runs), so an identical submit of the same
 * upstream user and credential is answered with the work already paid for (mcp/reuse/). `key_hash`
 * is a SHA-256 of the credential (token and user id), the tool and its arguments after defaults: never
 * the token. A row is reserved (`holder` set, `job_id` null) before the upstream call, so of parallel
 * identical submits on any instance exactly one creates the work; the others wait for its id.
 */
export const recentSubmits = sqliteTable(
  'recent_submits',
  {
    keyHash: text('key_hash').primaryKey(),
    /** keyword_search, user_search, expert_search or run. */
    kind: text('kind').notNull(),
    /** The upstream id, once created. */
    jobId: text('job_id'),
    /** The reservation's owner while the upstream call is made; null once created. */
    holder: text('holder'),
    /** When the submit was made (the reservation, then the creation). */
    createdAt: integer('created_at').notNull(),
    /** The last time a wait saw the work still running. */
    seenRunningAt: integer('seen_running_at').notNull(),
    /** When a wait first saw the work ended. */
    finishedAt: integer('finished_at'),
    /** Housekeeping deletes the row after this. */
    expiresAt: integer('expires_at').notNull(),
  },
  (t) => [
    index('recent_submits_job_idx').on(t.kind, t.jobId),
    index('recent_submits_expires_idx').on(t.expiresAt),
  ],
);
